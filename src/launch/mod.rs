//! Kernel launches: the simulator and the GPU launcher. Arrives with the run issue.
