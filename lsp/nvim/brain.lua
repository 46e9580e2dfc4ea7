-- brain language server for Neovim's built-in LSP client (Neovim 0.7+).
--
-- Install: copy this file to ~/.config/nvim/lua/brain.lua and add to init.lua:
--     require('brain').setup()   -- finds brain: <root>/.venv, <root>/venv, $VIRTUAL_ENV, PATH
--     require('brain').setup({ cmd = { '/path/to/venv/bin/brain', 'lsp' } })
-- It starts one server per brain workspace (the nearest ancestor folder holding a
-- `brain.toml`, else the nearest one that contains a `memory/` folder) for markdown
-- buffers below it. brain.toml wins: in the space and mindlink layouts each agent has its
-- own `<agent>/memory/` one level below the workspace.
--
-- Neovim 0.11+ has vim.lsp.config / vim.lsp.enable (used by nvim-lspconfig too);
-- instead of this module you can then write:
--
--   vim.lsp.config('brain', {
--     cmd = { 'brain', 'lsp' },
--     filetypes = { 'markdown' },
--     root_dir = function(bufnr, on_dir)
--       local root = vim.fs.root(bufnr, 'brain.toml') or vim.fs.root(bufnr, function(name, path)
--         return name == 'memory' and vim.fn.isdirectory(path .. '/' .. name) == 1
--       end)
--       if root then on_dir(root) end  -- no brain.toml or memory/ above: no server
--     end,
--   })
--   vim.lsp.enable('brain')

local M = {}

-- The nearest ancestor of `path` (a file) holding a `brain.toml`, else the nearest one
-- that contains a `memory` folder, or nil.
function M.find_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local with_memory = nil
  while true do
    if vim.fn.filereadable(dir .. '/brain.toml') == 1 then
      return dir
    end
    if with_memory == nil and vim.fn.isdirectory(dir .. '/memory') == 1 then
      with_memory = dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return with_memory
    end
    dir = parent
  end
end

local windows = vim.fn.has('win32') == 1

-- `brain` inside a virtual environment folder.
local function venv_brain(venv)
  if windows then
    return venv .. '\\Scripts\\brain.exe'
  end
  return venv .. '/bin/brain'
end

-- Asks a candidate for its version (`brain --version` -> `brain 0.1.0`): a missing or broken
-- install is skipped with a reason instead of a server that dies at start.
function M.check(cmd)
  if vim.fn.executable(cmd[1]) ~= 1 then
    return nil, 'not found'
  end
  local out = vim.fn.system(vim.list_extend(vim.deepcopy(cmd), { '--version' }))
  local version = out:match('^%s*brain%s+(%S+)')
  if vim.v.shell_error == 0 and version then
    return version
  end
  local last = vim.trim(out):match('([^\n]*)$') or ''
  return nil, last ~= '' and last or ('exit ' .. vim.v.shell_error)
end

-- The server command for a brain root, found the way the VS Code extension finds it:
-- `opts.cmd` if given; else `brain` in the root's own `.venv` or `venv`, in the activated
-- virtual environment ($VIRTUAL_ENV), and on PATH, each checked with `--version`.
-- Returns the command, or nil and the list of what was tried.
function M.find_server(root, opts)
  opts = opts or {}
  if opts.cmd then
    return opts.cmd, {}
  end
  local tried, missing = {}, {}
  local candidates = {}
  for _, venv in ipairs({ '.venv', 'venv' }) do
    table.insert(candidates, venv_brain(root .. '/' .. venv))
  end
  if vim.env.VIRTUAL_ENV and vim.env.VIRTUAL_ENV ~= '' then
    table.insert(candidates, venv_brain(vim.env.VIRTUAL_ENV))
  end
  for _, exe in ipairs(candidates) do
    if vim.fn.executable(exe) == 1 then
      local version, why = M.check({ exe })
      if version then
        return { exe, 'lsp' }, tried
      end
      table.insert(tried, exe .. ': ' .. why)
    else
      table.insert(missing, exe)
    end
  end
  if #missing > 0 then
    table.insert(tried, table.concat(missing, ', ') .. ': not found')
  end
  local on_path = vim.fn.exepath('brain')
  if on_path ~= '' then
    local version, why = M.check({ on_path })
    if version then
      return { on_path, 'lsp' }, tried
    end
    table.insert(tried, 'brain on PATH (' .. on_path .. '): ' .. why)
  else
    table.insert(tried, 'brain on PATH: not found')
  end
  return nil, tried
end

local servers = {} -- root -> command, or false when none was found (asked once per root)
local told = false -- the "not found" message is shown once per session

local function server_for(root, opts)
  if servers[root] == nil then
    local cmd, tried = M.find_server(root, opts)
    servers[root] = cmd or false
    if not cmd and not told then
      told = true
      local install = windows and 'py -m venv .venv; .venv\\Scripts\\pip install brain-memory'
        or 'python3 -m venv .venv && .venv/bin/pip install brain-memory'
      vim.notify(
        'brain: no language server found for ' .. root .. ', so no completion or diagnostics.\n'
          .. 'Looked for: ' .. table.concat(tried, '; ') .. '.\n'
          .. 'Install it in the workspace (' .. install .. ') or pass the command: '
          .. "require('brain').setup({ cmd = { '/path/to/brain', 'lsp' } })",
        vim.log.levels.WARN
      )
    end
  end
  return servers[root] or nil
end

local clients = {} -- Neovim 0.7 only: root -> client id

function M.setup(opts)
  opts = opts or {}
  servers, told = {}, false
  local group = vim.api.nvim_create_augroup('brain_lsp', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = 'markdown',
    callback = function(args)
      local name = vim.api.nvim_buf_get_name(args.buf)
      if name == '' or name:match('^%a[%w+.-]*://') then
        return -- unsaved buffer or not a local file
      end
      local root = M.find_root(name)
      if not root then
        return
      end
      local cmd = server_for(root, opts)
      if not cmd then
        return
      end
      local config = {
        name = 'brain',
        cmd = cmd,
        cmd_cwd = root,
        cmd_env = opts.env,
        root_dir = root,
        workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
        capabilities = opts.capabilities,
        on_attach = function(client, bufnr)
          vim.bo[bufnr].omnifunc = 'v:lua.vim.lsp.omnifunc' -- <C-x><C-o> completes [[links
          if opts.on_attach then
            opts.on_attach(client, bufnr)
          end
        end,
      }
      if vim.lsp.start then -- 0.8+: reuses the client with the same name and root_dir
        vim.lsp.start(config, { bufnr = args.buf })
        return
      end
      local id = clients[root]
      if not (id and vim.lsp.get_client_by_id(id)) then
        id = vim.lsp.start_client(config)
        if not id then
          return
        end
        clients[root] = id
      end
      vim.lsp.buf_attach_client(args.buf, id)
    end,
  })
end

return M
