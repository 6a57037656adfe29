vim.filetype.add({ extension = { ptx = "ptx" } })
