-- Headless Neovim (>= 0.11) against `kernlint server`: open a kernel file, check a
-- diagnostic and a hover. Run: nvim --headless -i NONE -u nvim_test.lua
-- env: KL_SERVER_CMD (space separated), KL_TEST_FILE, KL_OUT (JSON result path).
local out_path = assert(os.getenv("KL_OUT"), "KL_OUT")
local test_file = assert(os.getenv("KL_TEST_FILE"), "KL_TEST_FILE")
local server_cmd = vim.split(assert(os.getenv("KL_SERVER_CMD"), "KL_SERVER_CMD"), " ", { trimempty = true })

local result = { nvim = tostring(vim.version()), ok = false, errors = {} }
local function finish()
  result.ok = #result.errors == 0
  vim.fn.writefile({ vim.json.encode(result) }, out_path)
  io.stdout:write(vim.json.encode(result) .. "\n")
  vim.cmd(result.ok and "qall!" or "cquit 1")
end
local function fail(msg) table.insert(result.errors, msg) end

vim.defer_fn(function() fail("global timeout (30s)"); finish() end, 30000)

-- Every didChange without Neovim's own delay, as the plugin configures it.
vim.lsp.config("kernlint", {
  cmd = server_cmd,
  filetypes = { "python" },
  root_markers = { "pyproject.toml", ".git" },
  flags = { debounce_text_changes = 0 },
})

-- Each publishDiagnostics with its version, to tie diagnostics to the edit they answer.
local published = {}
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, res, ctx, cfg)
  table.insert(published, { version = res.version, diagnostics = res.diagnostics })
  return publish(err, res, ctx, cfg)
end
local function keys(diagnostics)
  local out = vim.tbl_map(function(d)
    return ("%d:%d %s %s"):format(d.range.start.line, d.range.start.character, d.code or "", d.message)
  end, diagnostics)
  table.sort(out)
  return out
end
-- The diagnostics published for the buffer's current version (nil after 5 s).
local function current(bufnr)
  local version = vim.api.nvim_buf_get_changedtick(bufnr)
  local found
  vim.wait(5000, function()
    for i = #published, 1, -1 do
      if published[i].version == version then found = published[i].diagnostics; return true end
    end
    return false
  end, 5)
  return found
end
vim.lsp.enable("kernlint")

local function run()
  vim.cmd.edit(test_file)
  local bufnr = vim.api.nvim_get_current_buf()
  if not vim.wait(10000, function() return #vim.lsp.get_clients({ bufnr = bufnr, name = "kernlint" }) > 0 end, 50) then
    fail("client did not attach"); return finish()
  end
  local client = vim.lsp.get_clients({ bufnr = bufnr, name = "kernlint" })[1]
  result.server_name = client.server_info and client.server_info.name

  vim.wait(10000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  result.diagnostics = vim.tbl_map(function(d)
    return { lnum = d.lnum, col = d.col, code = d.code, source = d.source }
  end, vim.diagnostic.get(bufnr))
  local kl101 = vim.tbl_filter(function(d) return d.code == "KL101" end, result.diagnostics)
  if not (kl101[1] and kl101[1].lnum == 12 and kl101[1].col == 4 and kl101[1].source == "kernlint") then
    fail("expected KL101 at 12:4, got " .. vim.inspect(result.diagnostics))
  end

  -- Hover on `i` in `i = cuda.grid(1)` (line 6, 1-based), as vim.lsp.buf.hover() asks.
  vim.api.nvim_win_set_cursor(0, { 6, 4 })
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  local hov = client:request_sync("textDocument/hover", params, 5000, bufnr)
  result.hover = hov and hov.result and hov.result.contents and hov.result.contents.value
  if not (result.hover and result.hover:find("i: int64", 1, true)) then
    fail("hover: expected the type int64, got " .. vim.inspect(hov))
  end

  vim.lsp.codelens.refresh({ bufnr = bufnr })
  vim.wait(5000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 50)
  result.codelens = vim.tbl_map(function(l) return l.command and l.command.title end, vim.lsp.codelens.get(bufnr))
  if result.codelens[1] ~= "Show PTX" then fail("expected code lens 'Show PTX', got " .. vim.inspect(result.codelens)) end

  -- Type a line into `saxpy` one key at a time: every keystroke's version gets its own
  -- diagnostics; an unclosed `(` is KL001 and closing it clears it; deleting the line
  -- gives back exactly the diagnostics of the opened file (nothing stale, nothing lost).
  local opened = keys(published[#published].diagnostics)
  local line = "        y = abs((x[i]))"
  vim.api.nvim_buf_set_lines(bufnr, 7, 7, false, { "" })
  for n = 1, #line do
    vim.api.nvim_buf_set_text(bufnr, 7, n - 1, 7, n - 1, { line:sub(n, n) })
    local d = current(bufnr)
    if not d then fail(("no diagnostics for keystroke %d"):format(n)); return finish() end
    local syntax = #vim.tbl_filter(function(x) return x.code == "KL001" end, d) > 0
    -- `(` still open after `abs((x[i]`: a syntax error, closed at the end.
    if n == #line and syntax then fail("KL001 left after the line is complete: " .. vim.inspect(keys(d))) end
    if line:sub(1, n):match("%(%(x%[i%]$") and not syntax then fail("no KL001 for an unclosed `(`") end
  end
  vim.api.nvim_buf_set_lines(bufnr, 7, 8, false, {})
  local back = keys(current(bufnr) or {})
  if not vim.deep_equal(back, opened) then
    fail("diagnostics after undoing the edits differ from the opened file's: " .. vim.inspect({ opened = opened, now = back }))
  end
  finish()
end

vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = function() vim.schedule(run) end })
