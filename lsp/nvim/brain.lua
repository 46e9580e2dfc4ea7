-- brain language server for Neovim's built-in LSP client (Neovim 0.7+).
--
-- Install: copy this file to ~/.config/nvim/lua/brain.lua and add to init.lua:
--     require('brain').setup()                                   -- `brain lsp`, or `python3 -m brain lsp`
--     require('brain').setup({ cmd = { '/path/to/venv/bin/brain', 'lsp' } })
-- It starts one server per brain workspace (the nearest ancestor folder that
-- contains a `memory/` folder) for markdown buffers below it.
--
-- Neovim 0.11+ has vim.lsp.config / vim.lsp.enable (used by nvim-lspconfig too);
-- instead of this module you can then write:
--
--   vim.lsp.config('brain', {
--     cmd = { 'brain', 'lsp' },
--     filetypes = { 'markdown' },
--     root_dir = function(bufnr, on_dir)
--       local root = vim.fs.root(bufnr, function(name, path)
--         return name == 'memory' and vim.fn.isdirectory(path .. '/' .. name) == 1
--       end)
--       if root then on_dir(root) end  -- no memory/ folder above: no server
--     end,
--   })
--   vim.lsp.enable('brain')

local M = {}

-- The nearest ancestor of `path` (a file) that contains a `memory` folder, or nil.
function M.find_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while true do
    if vim.fn.isdirectory(dir .. '/memory') == 1 then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

local function default_cmd()
  if vim.fn.executable('brain') == 1 then
    return { 'brain', 'lsp' }
  end
  return { 'python3', '-m', 'brain', 'lsp' }
end

local clients = {} -- Neovim 0.7 only: root -> client id

function M.setup(opts)
  opts = opts or {}
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
      local config = {
        name = 'brain',
        cmd = opts.cmd or default_cmd(),
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
