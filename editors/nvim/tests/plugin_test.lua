-- Headless test of the kernlint Neovim plugin against the real server.
-- Run: nvim --headless -i NONE -u editors/nvim/tests/plugin_test.lua
-- env: KL_SERVER_CMD (space separated), KL_TEST_FILE (a copy of editors/nvim/tests/kernels.py),
--      KL_PLUGIN_DIR (editors/nvim), KL_OUT (JSON result path).
local out_path = assert(os.getenv("KL_OUT"), "KL_OUT")
local test_file = assert(os.getenv("KL_TEST_FILE"), "KL_TEST_FILE")
local plugin_dir = assert(os.getenv("KL_PLUGIN_DIR"), "KL_PLUGIN_DIR")
local server_cmd = vim.split(assert(os.getenv("KL_SERVER_CMD"), "KL_SERVER_CMD"), " ", { trimempty = true })

-- The plugin as a user installs it: on the runtimepath, so plugin/kernlint.lua is sourced
-- at start-up (after this init file) and `require("kernlint")` resolves.
vim.opt.rtp:prepend(plugin_dir)
-- The python ftplugin's has('python3') probes the python3 provider by starting Python
-- (seconds behind pyenv shims on a busy machine); the test needs no provider.
for _, p in ipairs({ "python3", "node", "perl", "ruby" }) do vim.g["loaded_" .. p .. "_provider"] = 0 end
vim.g.mapleader = " "

local t0 = vim.uv.hrtime()
local result = { nvim = tostring(vim.version()), ok = false, errors = {}, checks = {}, t_ms = {} }
local function mark(k) result.t_ms[k] = math.floor((vim.uv.hrtime() - t0) / 1e6) end
local function finish()
  result.ok = #result.errors == 0
  vim.fn.writefile({ vim.json.encode(result) }, out_path)
  io.stdout:write(vim.json.encode(result) .. "\n")
  vim.cmd(result.ok and "qall!" or "cquit 1")
end
local function fail(msg) table.insert(result.errors, msg) end
local function check(name, ok, detail)
  table.insert(result.checks, (ok and "ok   " or "FAIL ") .. name)
  if not ok then fail(name .. (detail and (": " .. detail) or "")) end
  return ok
end

vim.defer_fn(function() fail("global timeout (45s)"); finish() end, 45000)

-- Messages from vim.notify, to show in the result when something fails.
result.notify = {}
vim.notify = function(msg) table.insert(result.notify, msg) end

-- name: "ptx/saxpy" or "run/saxpy"
local function buf_text(name)
  local buf = require("kernlint").result_bufnr(name:match("^(%a+)/(.*)$"))
  if not buf then return nil end
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n"), buf
end

-- Wait for the buffer `name` to be shown in a window with text satisfying `pred`.
local function wait_split(name, pred, ms)
  local text, buf
  vim.wait(ms or 15000, function()
    text, buf = buf_text(name)
    return text ~= nil and vim.fn.bufwinid(buf) ~= -1 and text ~= "" and (pred == nil or pred(text))
  end, 50)
  return text, buf
end

local function close_split(name)
  local _, buf = buf_text(name)
  if buf then
    local win = vim.fn.bufwinid(buf)
    if win ~= -1 then vim.api.nvim_win_close(win, true) end
    vim.api.nvim_buf_delete(buf, { force = true })
  end
end

local function ptx_ok(text)
  return text:find(".entry", 1, true) ~= nil or text:find("not available yet", 1, true) ~= nil
end

local function run()
  mark("vimenter")
  local kl = require("kernlint")
  check("plugin/kernlint.lua defines :KernlintPtx and :KernlintRun",
    vim.fn.exists(":KernlintPtx") == 2 and vim.fn.exists(":KernlintRun") == 2)
  check("code lens commands registered", vim.lsp.commands["kernlint.showPtx"] ~= nil
    and vim.lsp.commands["kernlint.runKernel"] ~= nil)
  kl.setup({ cmd = server_cmd })

  vim.cmd.edit(test_file)
  mark("opened")
  local src = vim.api.nvim_get_current_buf()
  local src_win = vim.api.nvim_get_current_win()
  if not vim.wait(10000, function() return kl.client(src) ~= nil end, 50) then
    fail("client did not attach"); return finish()
  end
  mark("attached")
  local client = kl.client(src)
  result.server = client.server_info and client.server_info.name

  -- Code lenses arrive without an explicit refresh (on_attach refreshes them).
  vim.wait(10000, function() return #vim.lsp.codelens.get(src) > 0 end, 50)
  mark("codelens")
  local titles = vim.tbl_map(function(l) return l.command and l.command.title end, vim.lsp.codelens.get(src))
  check("code lenses Show PTX / Run on device", vim.tbl_contains(titles, "Show PTX")
    and vim.tbl_contains(titles, "Run on device"), vim.inspect(titles))
  check("code lens mapping", vim.fn.maparg("<leader>kl", "n") ~= "")

  -- The kernel under the cursor (tests/kernels.py: saxpy's decorator on line 5, def 6-9;
  -- twice 13-17 with a `# kernlint: run` comment on 12; bad 20-22; host 25-26).
  local function kernel_at(line)
    vim.api.nvim_win_set_cursor(0, { line, 0 })
    return (kl.kernel_at_cursor(src))
  end
  check("kernel in the body", kernel_at(8) == "saxpy", tostring(kernel_at(8)))
  check("kernel on the def line", kernel_at(6) == "saxpy")
  check("kernel on the decorator", kernel_at(5) == "saxpy", tostring(kernel_at(5)))
  check("second kernel", kernel_at(16) == "twice", tostring(kernel_at(16)))
  check("third kernel", kernel_at(21) == "bad", tostring(kernel_at(21)))
  check("no kernel in host code", kernel_at(26) == nil, tostring(kernel_at(26)))

  -- Prompts (vim.ui.input) answer grid 8, block 128 and accept the offered arguments.
  local answers = {}
  vim.ui.input = function(opts, on_confirm)
    table.insert(answers, opts.prompt .. (opts.default or ""))
    local prompt = opts.prompt
    if prompt:find("grid") then return on_confirm("8") end
    if prompt:find("block") then return on_confirm("128") end
    return on_confirm(opts.default)
  end

  -- :KernlintPtx with the cursor in saxpy's body.
  vim.api.nvim_win_set_cursor(0, { 8, 4 })
  vim.cmd("KernlintPtx")
  local ptx, pbuf = wait_split("ptx/saxpy", ptx_ok)
  mark("ptx")
  result.ptx_head = ptx and table.concat(vim.list_slice(vim.split(ptx, "\n"), 1, 6), "\n")
  if check(":KernlintPtx opens the PTX split", ptx ~= nil and ptx_ok(ptx), vim.inspect(result.ptx_head)) then
    result.ptx_kind = ptx:find(".entry", 1, true) and ".entry" or "not available yet"
    check("PTX split has filetype ptx", vim.bo[pbuf].filetype == "ptx", vim.bo[pbuf].filetype)
    check("PTX split is vertical", vim.fn.winlayout()[1] == "row", vim.inspect(vim.fn.winlayout()))
    check("focus stays in the source", vim.api.nvim_get_current_win() == src_win)
    check("PTX buffer name", vim.api.nvim_buf_get_name(pbuf):find("kernlint://ptx/saxpy", 1, true) ~= nil,
      vim.api.nvim_buf_get_name(pbuf))
    -- Leaving insert mode in the source re-requests the PTX.
    vim.bo[pbuf].modifiable = true
    vim.api.nvim_buf_set_lines(pbuf, 0, -1, false, { "stale" })
    vim.api.nvim_exec_autocmds("InsertLeave", { buffer = src })
    local again = wait_split("ptx/saxpy", ptx_ok, 5000)
    check("PTX refreshes on InsertLeave", again ~= nil and ptx_ok(again))
  end

  -- :KernlintRun {grid} {block} {args json}: out = a * x with x = arange(1024), a = 2.
  vim.api.nvim_win_set_cursor(0, { 7, 4 })
  vim.cmd([[KernlintRun 4 256 [{"dtype": "float32", "shape": [1024]}, {"dtype": "float32", "shape": [1024], "fill": "arange"}, 2.0] ]])
  local out = wait_split("run/saxpy", function(t) return t:find("arg 0", 1, true) or t:find("failed", 1, true) end)
  mark("run")
  result.run = out
  if check(":KernlintRun opens the result split", out ~= nil, vim.inspect(result.notify)) then
    check("run header", out:find("kernlint run: saxpy  grid=4 block=256  on ", 1, true) ~= nil, out)
    check("array summary of out", out:find("arg 0: float32[1024]  min=0  max=2046  mean=1023", 1, true) ~= nil, out)
    check("array summary of x", out:find("arg 1: float32[1024]  min=0  max=1023", 1, true) ~= nil, out)
    check("first values", out:find("first: 0, 2, 4, 6", 1, true) ~= nil, out)
    check("sanitizer line", out:find("sanitizer: no findings", 1, true) ~= nil, out)
  end
  -- A bad argument list is an error message, not a crash.
  vim.cmd([[KernlintRun 4 256 [1.0] ]])
  local bad = wait_split("run/saxpy", function(t) return t:find("failed", 1, true) end, 5000)
  check("wrong arity shows the server's error", bad ~= nil and bad:find("takes 3 arguments", 1, true) ~= nil, bad)

  -- :KernlintRun with no arguments: the launch from the `# kernlint: run` comment, no prompt.
  vim.api.nvim_win_set_cursor(0, { 16, 4 })
  vim.cmd("KernlintRun")
  local rec = wait_split("run/twice", function(t) return t:find("arg 0", 1, true) or t:find("failed", 1, true) end)
  result.recipe_run = rec
  check(":KernlintRun without arguments runs the file's launch", rec ~= nil
    and rec:find("launch from the file", 1, true) ~= nil
    and rec:find("arg 0: float32[128]  min=0  max=254  mean=127", 1, true) ~= nil and #answers == 0,
    vim.inspect({ rec, answers }))
  close_split("run/twice")

  -- The code lenses through vim.lsp.codelens.run (what <leader>kl does): "Show PTX", then
  -- "Run on device" answering the prompts for grid, block and arguments.
  close_split("ptx/saxpy")
  close_split("run/saxpy")
  local lens_line
  for _, l in ipairs(vim.lsp.codelens.get(src)) do
    if l.command and l.command.arguments and l.command.arguments[2] == "saxpy" then lens_line = l.range.start.line end
  end
  if not check("saxpy has a code lens", lens_line ~= nil) then return finish() end
  local pick
  vim.ui.select = function(items, opts, on_choice)
    for _, item in ipairs(items) do
      if opts.format_item(item) == pick then return on_choice(item) end
    end
    on_choice(nil)
  end
  vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })
  pick = "Show PTX"
  vim.lsp.codelens.run()
  local ptx2 = wait_split("ptx/saxpy", ptx_ok)
  check("code lens Show PTX opens the PTX split", ptx2 ~= nil and ptx_ok(ptx2), vim.inspect(result.notify))
  vim.api.nvim_set_current_win(src_win)
  vim.wait(3000, function() return #vim.lsp.codelens.get(src) > 0 end, 50)
  vim.api.nvim_win_set_cursor(0, { lens_line + 1, 0 })
  pick = "Run on device"
  vim.lsp.codelens.run()
  local out2 = wait_split("run/saxpy", function(t) return t:find("arg 0", 1, true) end)
  result.lens_prompts = answers
  -- saxpy's only launch has arrays of unknown size: no launch in the file, so it asks,
  -- offering the arguments of the last :KernlintRun.
  check("code lens Run on device asks for grid, block and arguments", #answers == 3, vim.inspect(answers))
  check("code lens Run on device runs with the answers", out2 ~= nil
    and out2:find("grid=8 block=128", 1, true) ~= nil and out2:find("max=2046", 1, true) ~= nil, out2)
  mark("done")
  finish()
end

vim.api.nvim_create_autocmd("VimEnter", { once = true, callback = function() vim.schedule(run) end })
