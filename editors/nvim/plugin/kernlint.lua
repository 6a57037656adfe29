-- kernlint user commands. The server itself is configured by require("kernlint").setup()
-- (or by nvim-lspconfig under the name "kernlint"); the commands work with either.
if vim.g.loaded_kernlint then
  return
end
vim.g.loaded_kernlint = true

vim.api.nvim_create_user_command("KernlintPtx", function(opts)
  require("kernlint").ptx_command(opts)
end, { nargs = "?", desc = "kernlint: PTX of the kernel under the cursor ([signature])" })

vim.api.nvim_create_user_command("KernlintRun", function(opts)
  require("kernlint").run_command(opts)
end, { nargs = "*", desc = "kernlint: run the kernel under the cursor ({grid} {block} {args json})" })

-- Client-side handlers for the code lenses' commands (kernlint.showPtx / kernlint.runKernel).
require("kernlint").register_commands()
