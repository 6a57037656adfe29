//! `kernlint server` as a child process, driven over its stdin and stdout as an editor drives
//! it: framed JSON-RPC messages written to it, and every message it writes parsed (strictly:
//! each frame has a Content-Length header and a JSON-RPC 2.0 body) and delivered in order.
//! Shared by the tests of the real binary (tests/lsp.rs, tests/lsp_abuse.rs), each of which
//! includes this file as a module and adds its own way of waiting for messages; what one of
//! them does not use is not dead code.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};

use serde_json::{Value, json};

pub struct ServerProcess {
    pub child: Child,
    stdin: ChildStdin,
    /// Every message the server writes, in order.
    pub messages: Receiver<Value>,
    next_id: i64,
}

impl ServerProcess {
    pub fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kernlint"))
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if stdout.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    let (name, value) = line.split_once(':').expect("a header the server wrote");
                    if name.eq_ignore_ascii_case("content-length") {
                        length = Some(value.trim().parse::<usize>().expect("a valid length"));
                    }
                }
                let mut body = vec![0; length.expect("the server always sends Content-Length")];
                stdout.read_exact(&mut body).unwrap();
                let message: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                assert_eq!(message["jsonrpc"], "2.0", "{message}");
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Self { child, stdin, messages, next_id: 1 }
    }

    /// Bytes as they are, framed or not.
    pub fn raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// One frame: a Content-Length header, then `body` (JSON or not).
    pub fn send_body(&mut self, body: &[u8]) {
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body);
        self.raw(&frame);
    }

    pub fn send(&mut self, message: &Value) {
        self.send_body(message.to_string().as_bytes());
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Send a request without waiting; its id.
    pub fn post(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }
}
