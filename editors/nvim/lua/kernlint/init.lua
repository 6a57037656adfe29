-- kernlint for Neovim (>= 0.11): the language server, "Show PTX" and "Run on device".
--
--   require("kernlint").setup({})            -- registers and enables the server
--   :KernlintPtx [signature]                 -- PTX of the kernel under the cursor, in a split
--   :KernlintRun {grid} {block} {args json}  -- run it (simulator or GPU), summary in a split
--
-- The code lenses "Show PTX" / "Run on device" (`kernlint.showPtx`, `kernlint.runKernel`)
-- are handled here on the client side, so `vim.lsp.codelens.run()` opens the same splits.
local M = {}

local NAME = "kernlint"

--- Defaults; `setup(opts)` merges `opts` over them.
M.defaults = {
  -- The server command. nil: `$VIRTUAL_ENV/bin/kernlint` when a venv is active and has it
  -- (`pip install kernlint`), else `kernlint` on PATH.
  cmd = nil,
  filetypes = { "python" },
  root_markers = { "kernlint.toml", "pyproject.toml", "setup.cfg", ".git" },
  -- Sent as the `kernlint` section of workspace/configuration.
  settings = { kernlint = { inlayHints = { enable = true } } },
  -- Refresh code lenses on BufEnter, InsertLeave and new diagnostics (and on attach).
  codelens = true,
  -- Buffer-local mappings set when the server attaches; false disables one (or all).
  keys = { codelens = "<leader>kl", ptx = "<leader>kp", run = "<leader>kr" },
  -- Re-request the PTX when its source buffer is written or leaves insert mode.
  ptx_refresh = true,
  -- How the result windows open (an Ex command that creates a window).
  ptx_split = "vertical rightbelow split",
  run_split = "botright split",
  -- Extra `vim.lsp.config` fields (capabilities, on_init, ...).
  lsp = {},
}

M.options = vim.deepcopy(M.defaults)

local function notify(msg, level)
  vim.notify("kernlint: " .. msg, level or vim.log.levels.INFO)
end

--- The server command to start.
function M.server_cmd()
  if M.options.cmd then
    return M.options.cmd
  end
  local venv = vim.env.VIRTUAL_ENV
  if venv and vim.fn.executable(venv .. "/bin/kernlint") == 1 then
    return { venv .. "/bin/kernlint", "server" }
  end
  return { "kernlint", "server" }
end

--- The kernlint client attached to `bufnr`, or nil.
function M.client(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr or 0, name = NAME })[1]
end

-- ---------------------------------------------------------------------------------------
-- Finding the kernel under the cursor

local function contains(range, line)
  return range.start.line <= line and line <= range["end"].line
end

-- Whether line `line` (0-based) is in the decorator block just above the `def` at `def_line`:
-- the block is the run of lines above the `def` (no blank line) from its first `@` down.
local function in_decorators(bufnr, line, def_line)
  if line >= def_line then
    return false
  end
  local first = math.max(0, def_line - 200)
  local lines = vim.api.nvim_buf_get_lines(bufnr, first, def_line, false)
  local top
  for i = #lines, 1, -1 do
    local text = lines[i]
    if text:match("^%s*$") then
      break
    end
    if text:match("^%s*@") then
      top = first + i - 1
    elseif not (text:match("^%s+") or text:match("^%s*[%)%]}#]")) then
      break
    end
  end
  return top ~= nil and top <= line
end

--- The name of the kernel whose `def` encloses the cursor (or whose decorators the cursor is
--- on), from the server's document symbols; falls back to the nearest code lens above.
--- Returns name, or nil and a reason.
function M.kernel_at_cursor(bufnr, client)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  client = client or M.client(bufnr)
  if not client then
    return nil, "the kernlint server is not attached to this buffer"
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local resp = client:request_sync("textDocument/documentSymbol",
    { textDocument = vim.lsp.util.make_text_document_params(bufnr) }, 3000, bufnr)
  local symbols = resp and resp.result or {}
  local best, best_size, below
  local function visit(list)
    for _, s in ipairs(list or {}) do
      local range = s.range or (s.location and s.location.range)
      if range and (s.detail == nil or s.detail == "kernel") then
        if contains(range, line) then
          local size = range["end"].line - range.start.line
          if not best or size < best_size then
            best, best_size = s, size
          end
        elseif range.start.line > line and (not below or range.start.line < below.start) then
          below = { start = range.start.line, symbol = s }
        end
      end
      visit(s.children)
    end
  end
  visit(symbols)
  if best then
    return best.name
  end
  if below and in_decorators(bufnr, line, below.start) then
    return below.symbol.name
  end
  -- Fallback: code lenses name the kernels; take the last one at or above the cursor.
  local name, at
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    local args = lens.command and lens.command.arguments
    if args and args[2] and lens.range.start.line <= line and (not at or lens.range.start.line >= at) then
      name, at = args[2], lens.range.start.line
    end
  end
  if name and #symbols == 0 then
    return name
  end
  return nil, "no kernel under the cursor"
end

-- ---------------------------------------------------------------------------------------
-- Result windows

-- One scratch buffer per kind and kernel, named kernlint://{kind}/{kernel}, shown in one
-- window, reused on the next request.
local result_buffers = {}

--- The result buffer of `kind` ("ptx" or "run") for `kernel`, or nil.
function M.result_bufnr(kind, kernel)
  local buf = result_buffers[kind .. "/" .. kernel]
  if buf and vim.api.nvim_buf_is_valid(buf) then
    return buf
  end
end

local function result_buffer(kind, kernel, split)
  local buf = M.result_bufnr(kind, kernel)
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    result_buffers[kind .. "/" .. kernel] = buf
    pcall(vim.api.nvim_buf_set_name, buf, ("kernlint://%s/%s"):format(kind, kernel))
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "hide"
    vim.bo[buf].swapfile = false
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    local from = vim.api.nvim_get_current_win()
    vim.cmd(split)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    vim.api.nvim_set_current_win(from)
  end
  return buf, win
end

local function set_lines(buf, lines)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
end

local function error_text(err)
  if type(err) == "table" then
    return err.message or vim.inspect(err)
  end
  return tostring(err)
end

-- ---------------------------------------------------------------------------------------
-- PTX

local ptx_autocmds = vim.api.nvim_create_augroup("kernlint_ptx_refresh", { clear = true })

--- Request the PTX of `kernel` in `bufnr` and show it in a vertical split (filetype `ptx`).
--- A server error (e.g. "not available yet: ...") is shown in the split as a comment.
function M.show_ptx(bufnr, kernel, signature)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.client(bufnr)
  if not client then
    return notify("the kernlint server is not attached to this buffer", vim.log.levels.ERROR)
  end
  local params = { uri = vim.uri_from_bufnr(bufnr), kernel = kernel, signature = signature }
  client:request("kernlint/ptx", params, function(err, result)
    local buf = result_buffer("ptx", kernel, M.options.ptx_split)
    vim.b[buf].kernlint_source = { bufnr = bufnr, kernel = kernel, signature = signature }
    local lines
    if err then
      lines = { "// kernlint: " .. kernel .. ": " .. error_text(err) }
      notify(error_text(err), vim.log.levels.WARN)
    else
      lines = vim.split(result.ptx or "", "\n", { plain = true })
      table.insert(lines, 1, ("// kernlint: %s %s"):format(result.kernel or kernel, result.signature or ""))
    end
    set_lines(buf, lines)
    vim.bo[buf].filetype = "ptx"
    vim.b[buf].kernlint_ptx_ok = err == nil
  end, bufnr)

  if M.options.ptx_refresh then
    vim.api.nvim_clear_autocmds({ group = ptx_autocmds, buffer = bufnr })
    vim.api.nvim_create_autocmd({ "BufWritePost", "InsertLeave" }, {
      group = ptx_autocmds,
      buffer = bufnr,
      desc = "kernlint: refresh the PTX split",
      callback = function()
        local buf = M.result_bufnr("ptx", kernel)
        if buf and vim.fn.bufwinid(buf) ~= -1 then
          M.show_ptx(bufnr, kernel, signature)
        end
      end,
    })
  end
end

--- :KernlintPtx [signature]
function M.ptx_command(opts)
  local kernel, why = M.kernel_at_cursor(0)
  if not kernel then
    return notify(why, vim.log.levels.ERROR)
  end
  local signature = opts and opts.args ~= "" and opts.args or nil
  M.show_ptx(0, kernel, signature)
end

-- ---------------------------------------------------------------------------------------
-- Run

-- The last launch that ran per kernel, offered again by the code lens's prompts.
M.last_run = {}

local function fmt_number(v)
  if type(v) ~= "number" then
    return tostring(v)
  end
  if v == math.floor(v) and math.abs(v) < 1e15 then
    return ("%d"):format(v)
  end
  return ("%.6g"):format(v)
end

local function fmt_dims(d)
  if type(d) == "table" then
    return "(" .. table.concat(vim.tbl_map(fmt_number, d), ", ") .. ")"
  end
  return fmt_number(d)
end

-- NumPy type strings ("<f4") as Numba names ("float32").
local DTYPES = {
  b1 = "bool", i1 = "int8", i2 = "int16", i4 = "int32", i8 = "int64", u1 = "uint8", u2 = "uint16",
  u4 = "uint32", u8 = "uint64", f2 = "float16", f4 = "float32", f8 = "float64", c8 = "complex64",
  c16 = "complex128",
}
local function dtype_name(d)
  if type(d) ~= "string" then
    return "?"
  end
  return DTYPES[(d:gsub("^[<>=|]", ""))] or d
end

--- The lines of the result summary of a `kernlint/run` answer (`launch` nil: the server's).
function M.format_run(result, launch)
  local how = launch and ("grid=%s block=%s"):format(fmt_dims(launch.grid), fmt_dims(launch.block))
    or "launch from the file"
  local lines = {
    ("kernlint run: %s  %s  on %s  %.3f ms"):format(result.kernel, how, result.device or "?", result.elapsedMs or 0),
    "",
  }
  for _, a in ipairs(result.arrays or {}) do
    local shape = table.concat(vim.tbl_map(fmt_number, a.shape or {}), ", ")
    table.insert(lines, ("arg %d: %s[%s]  min=%s  max=%s  mean=%s"):format(a.arg, dtype_name(a.dtype), shape,
      fmt_number(a.min), fmt_number(a.max), fmt_number(a.mean)))
    local head = vim.tbl_map(fmt_number, a.head or {})
    table.insert(lines, "  first: " .. table.concat(head, ", ") .. (#head > 0 and ", ..." or ""))
  end
  if #(result.arrays or {}) == 0 then
    table.insert(lines, "(no array arguments)")
  end
  table.insert(lines, "")
  if #(result.messages or {}) == 0 then
    table.insert(lines, "sanitizer: no findings")
  else
    table.insert(lines, ("sanitizer: %d finding(s)"):format(#result.messages))
    for _, m in ipairs(result.messages) do
      table.insert(lines, "  " .. m)
    end
  end
  return lines
end

-- Sanitizer findings ("line N: Kind: message") as quickfix items of the source buffer.
local function findings_to_qf(bufnr, kernel, messages)
  local items = {}
  for _, m in ipairs(messages or {}) do
    local lnum, text = m:match("^line (%d+): (.*)$")
    if lnum then
      table.insert(items, { bufnr = bufnr, lnum = tonumber(lnum), text = text, type = "W" })
    end
  end
  vim.fn.setqflist({}, "r", { title = "kernlint run: " .. kernel, items = items })
end

local INVALID_PARAMS = -32602

--- Run `kernel` in `bufnr` and show the summary in a split. `launch` = {grid, block, args}; nil
--- asks the server for the launch it derives from the file (a launch site with constant sizes
--- or a `# kernlint: run grid=... block=... args=...` comment). `on_invalid(err)`, if given,
--- takes a rejected request (-32602: e.g. no launch in the file) instead of the split;
--- `done(err, result)` is called afterwards, if given.
function M.run(bufnr, kernel, launch, done, on_invalid)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = M.client(bufnr)
  if not client then
    return notify("the kernlint server is not attached to this buffer", vim.log.levels.ERROR)
  end
  local params = { uri = vim.uri_from_bufnr(bufnr), kernel = kernel, grid = vim.NIL, block = vim.NIL }
  if launch then
    params.grid, params.block, params.args, params.signature = launch.grid, launch.block, launch.args, launch.signature
    notify(("running %s %s x %s ..."):format(kernel, fmt_dims(launch.grid), fmt_dims(launch.block)))
  else
    notify(("running %s with the launch in the file ..."):format(kernel))
  end
  client:request("kernlint/run", params, function(err, result)
    if err and on_invalid and err.code == INVALID_PARAMS then
      return on_invalid(err)
    end
    local buf = result_buffer("run", kernel, M.options.run_split)
    if err then
      set_lines(buf, { "kernlint run: " .. kernel .. " failed", "", error_text(err) })
      notify(error_text(err), vim.log.levels.ERROR)
    else
      if launch then
        M.last_run[kernel] = launch
      end
      set_lines(buf, M.format_run(result, launch))
      if #(result.messages or {}) > 0 then
        findings_to_qf(bufnr, kernel, result.messages)
      end
      notify(("%s ran on %s in %.2f ms"):format(kernel, result.device or "?", result.elapsedMs or 0))
    end
    vim.bo[buf].filetype = "kernlintrun"
    if done then
      done(err, result)
    end
  end, bufnr)
end

--- Run with the launch the server finds in the file; where there is none, ask for one.
function M.run_or_prompt(bufnr, kernel)
  M.run(bufnr, kernel, nil, nil, function()
    M.prompt_run(bufnr, kernel)
  end)
end

local function decode(text, what)
  local ok, value = pcall(vim.json.decode, text)
  if not ok then
    return nil, ("%s is not JSON: %s"):format(what, text)
  end
  return value
end

--- Parse the arguments of :KernlintRun: {grid} {block} {args json}, grid and block as an
--- integer or a JSON list (`4`, `[64,64]`), args a JSON list of numbers and array
--- descriptions ({"dtype", "shape", "fill"}).
function M.parse_run_args(fargs)
  if #fargs < 2 then
    return nil, "usage: :KernlintRun {grid} {block} [args json]"
  end
  local grid, e1 = decode(fargs[1], "grid")
  if grid == nil then
    return nil, e1
  end
  local block, e2 = decode(fargs[2], "block")
  if block == nil then
    return nil, e2
  end
  local args
  if #fargs > 2 then
    local e3
    args, e3 = decode(table.concat(fargs, " ", 3), "args")
    if args == nil then
      return nil, e3
    end
    if type(args) ~= "table" then
      args = { args }
    end
  end
  return { grid = grid, block = block, args = args }
end

--- Ask for grid, block and arguments (defaults: the last run of this kernel), then run.
function M.prompt_run(bufnr, kernel)
  local last = M.last_run[kernel] or {}
  local function ask(prompt, default, k)
    vim.ui.input({ prompt = prompt, default = default }, function(answer)
      if answer == nil then
        return
      end
      k(answer)
    end)
  end
  ask(kernel .. " grid: ", last.grid and vim.json.encode(last.grid) or "1", function(grid)
    ask(kernel .. " block: ", last.block and vim.json.encode(last.block) or "32", function(block)
      ask(kernel .. " args (JSON list): ", last.args and vim.json.encode(last.args) or "[]", function(args)
        local launch, why = M.parse_run_args({ grid, block, args })
        if not launch then
          return notify(why, vim.log.levels.ERROR)
        end
        M.run(bufnr, kernel, launch)
      end)
    end)
  end)
end

--- :KernlintRun {grid} {block} {args json}; with no arguments, the launch in the file, else
--- asks (offering the last one that ran).
function M.run_command(opts)
  local kernel, why = M.kernel_at_cursor(0)
  if not kernel then
    return notify(why, vim.log.levels.ERROR)
  end
  local bufnr = vim.api.nvim_get_current_buf()
  if #opts.fargs == 0 then
    return M.run_or_prompt(bufnr, kernel)
  end
  local launch, err = M.parse_run_args(opts.fargs)
  if not launch then
    return notify(err, vim.log.levels.ERROR)
  end
  M.run(bufnr, kernel, launch)
end

-- ---------------------------------------------------------------------------------------
-- Code lenses: client-side handlers for the commands the server's lenses carry.

local function lens_target(command, ctx)
  local args = command.arguments or {}
  local bufnr = ctx and ctx.bufnr
  if args[1] then
    bufnr = vim.uri_to_bufnr(args[1])
  end
  return bufnr, args[2]
end

--- Register `kernlint.showPtx` and `kernlint.runKernel` in `vim.lsp.commands` (done when
--- this module loads, so nvim-lspconfig users get them too).
function M.register_commands()
  vim.lsp.commands["kernlint.showPtx"] = function(command, ctx)
    local bufnr, kernel = lens_target(command, ctx)
    if kernel then
      M.show_ptx(bufnr, kernel, (command.arguments or {})[3])
    end
    -- Running a lens hides its line's lenses until the next refresh.
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
  vim.lsp.commands["kernlint.runKernel"] = function(command, ctx)
    local bufnr, kernel = lens_target(command, ctx)
    if kernel then
      M.run_or_prompt(bufnr, kernel)
    end
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
end

local lens_group = vim.api.nvim_create_augroup("kernlint_codelens", { clear = true })

local function map(bufnr, lhs, rhs, desc)
  if lhs and lhs ~= false then
    vim.keymap.set("n", lhs, rhs, { buffer = bufnr, desc = "kernlint: " .. desc })
  end
end

--- Per-buffer set-up when the server attaches: code lens refresh and mappings. Usable as
--- `on_attach` with nvim-lspconfig.
function M.on_attach(client, bufnr)
  if M.options.codelens and client:supports_method("textDocument/codeLens") then
    vim.api.nvim_clear_autocmds({ group = lens_group, buffer = bufnr })
    -- DiagnosticChanged: the server has analysed the text, so the lenses are ready (a lens
    -- request that raced the first analysis may have been answered "content modified").
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "DiagnosticChanged" }, {
      group = lens_group,
      buffer = bufnr,
      desc = "kernlint: refresh code lenses",
      callback = function()
        vim.lsp.codelens.refresh({ bufnr = bufnr })
      end,
    })
    vim.lsp.codelens.refresh({ bufnr = bufnr })
  end
  local keys = M.options.keys
  if keys then
    map(bufnr, keys.codelens, vim.lsp.codelens.run, "run the code lens on this line")
    map(bufnr, keys.ptx, function() M.ptx_command({ args = "" }) end, "show PTX")
    map(bufnr, keys.run, function() M.run_command({ fargs = {} }) end, "run kernel")
  end
end

--- Configure and enable the server (Neovim 0.11 `vim.lsp.config` / `vim.lsp.enable`).
function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  if opts and opts.keys == false then
    M.options.keys = false
  end
  if vim.fn.has("nvim-0.11") == 0 then
    return notify("needs Neovim 0.11 or later (vim.lsp.config)", vim.log.levels.ERROR)
  end
  M.register_commands()
  local user_on_attach = M.options.lsp.on_attach
  -- The server debounces bursts of typing itself (30 ms): Neovim's own 150 ms delay before
  -- each didChange would only hold back every keystroke's diagnostics.
  local config = vim.tbl_extend("force", { flags = { debounce_text_changes = 0 } }, M.options.lsp, {
    cmd = M.server_cmd(),
    filetypes = M.options.filetypes,
    root_markers = M.options.root_markers,
    settings = M.options.settings,
    on_attach = function(client, bufnr)
      M.on_attach(client, bufnr)
      if user_on_attach then
        user_on_attach(client, bufnr)
      end
    end,
  })
  vim.lsp.config(NAME, config)
  vim.lsp.enable(NAME)
end

M.register_commands()

return M
