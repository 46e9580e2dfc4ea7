-- Drives a real Neovim (0.7+, headless) against `python -m brain lsp` through lsp/nvim/brain.lua.
-- Environment: BRAIN_TEST_PYTHON, BRAIN_TEST_WORKSPACE, BRAIN_TEST_NOTE (relative), BRAIN_NVIM_PLUGIN,
-- BRAIN_TEST_OUT (a JSON file this script writes its observations to).
local env = vim.env
local out = { notified = {} }
-- What the plugin tells the user (vim.notify), recorded.
vim.notify = function(msg) table.insert(out.notified, msg) end

local function finish(err)
  out.error = err
  local file = io.open(env.BRAIN_TEST_OUT, 'w')
  file:write(vim.fn.json_encode(out))
  file:close()
  vim.cmd('qall!')
end

local ok, err = pcall(function()
  vim.cmd('filetype on')
  local brain = dofile(env.BRAIN_NVIM_PLUGIN)
  if env.BRAIN_TEST_SETUP == 'discover' then
    brain.setup() -- no command: found in the workspace's .venv, or not at all
  else
    brain.setup({ cmd = { env.BRAIN_TEST_PYTHON, '-m', 'brain', 'lsp' } })
  end

  vim.cmd('edit ' .. vim.fn.fnameescape(env.BRAIN_TEST_WORKSPACE .. '/' .. env.BRAIN_TEST_NOTE))
  local bufnr = vim.api.nvim_get_current_buf()
  out.filetype = vim.bo[bufnr].filetype
  if env.BRAIN_TEST_EXPECT_NO_SERVER == '1' then
    -- a second note of the same workspace, and one more look after a while: still one message
    vim.cmd('edit ' .. vim.fn.fnameescape(env.BRAIN_TEST_WORKSPACE .. '/memory/bot/alpha.md'))
    vim.wait(2000, function() return false end, 100)
    out.attached = #vim.lsp.get_active_clients() > 0
    return
  end

  -- the broken-link diagnostic, at the link
  out.attached = vim.wait(20000, function() return #vim.lsp.buf_get_clients(bufnr) > 0 end, 50)
  out.got_diagnostics = vim.wait(30000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, end_col = d.end_col, code = d.code,
                                    severity = d.severity, message = d.message })
  end
  local client = vim.lsp.buf_get_clients(bufnr)[next(vim.lsp.buf_get_clients(bufnr))]
  out.client_name = client and client.name

  -- completion after `[[` at the end of the last line, typed in this editor
  local last = vim.api.nvim_buf_line_count(bufnr)
  -- (normal mode keeps the cursor on a character: it rests on the space after `[[`)
  local typed = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1] .. ' [['
  vim.api.nvim_buf_set_lines(bufnr, last - 1, last, false, { typed .. ' ' })
  vim.api.nvim_win_set_cursor(0, { last, #typed })
  local params = vim.lsp.util.make_position_params()
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/completion', params, 20000)
  out.labels = {}
  local gamma
  for _, response in pairs(responses or {}) do
    local result = response.result or {}
    for _, item in ipairs(result.items or result) do
      table.insert(out.labels, item.label)
      if item.label == 'gamma' then gamma = item end
    end
  end
  if gamma and gamma.textEdit then
    vim.lsp.util.apply_text_edits({ gamma.textEdit }, bufnr, client and client.offset_encoding or 'utf-16')
    out.completed_line = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1]
  end

  -- an agent writes the missing note: the server sees it on disk and clears the diagnostic
  local created = io.open(env.BRAIN_TEST_WORKSPACE .. '/memory/bot/missing-note.md', 'w')
  created:write('---\ndescription: written by an agent\n---\n')
  created:close()
  out.cleared = vim.wait(30000, function() return #vim.diagnostic.get(bufnr) == 0 end, 50)
end)

finish(not ok and tostring(err) or vim.NIL)
