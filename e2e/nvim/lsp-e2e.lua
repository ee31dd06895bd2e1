-- Neovim 0.7 as a second LSP client of the fencelint server, headless:
--   SERVER=<path>/server.mjs RESULT=<file.json> nvim --headless --clean -u lsp-e2e.lua src/save-resource.ts
-- Attaches the server over stdio, waits for the pushed diagnostics (0.7 does not pull),
-- applies the preferred code action, writes the file and waits for the diagnostics to clear.
-- Writes a JSON summary to $RESULT and exits 0, or exits 1 with the failure in the summary.
local RULE = 'fencelint/require-fence-condition'
local result = { steps = {} }

local function step(name, value)
  table.insert(result.steps, name)
  if value ~= nil then result[name] = value end
end

local function finish(code)
  local file = io.open(os.getenv('RESULT'), 'w')
  file:write(vim.fn.json_encode(result))
  file:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit ' .. code))
end

local function fencelint_diagnostics()
  return vim.tbl_filter(function(d) return d.source == 'fencelint' end, vim.diagnostic.get(0))
end

-- 0.7 has no vim.lsp.diagnostic.from(): rebuild the LSP diagnostic (the fixture is ASCII, so
-- byte columns equal UTF-16 columns).
local function to_lsp(d)
  local lsp = vim.deepcopy((d.user_data or {}).lsp or {})
  lsp.range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } }
  lsp.message, lsp.source, lsp.code = d.message, d.source, d.code
  lsp.severity = d.severity
  return lsp
end

local function run()
  local started = vim.loop.hrtime()
  local id = vim.lsp.start_client({
    name = 'fencelint',
    cmd = { 'node', os.getenv('SERVER'), '--stdio' },
    root_dir = vim.fn.getcwd(),
  })
  assert(id, 'the server did not start')
  vim.lsp.buf_attach_client(0, id)
  local client = vim.lsp.get_client_by_id(id)

  assert(vim.wait(30000, function() return #fencelint_diagnostics() > 0 end, 50), 'no fencelint diagnostic within 30 s')
  local diagnostics = fencelint_diagnostics()
  step('first_diagnostic_ms', math.floor((vim.loop.hrtime() - started) / 1e6))
  step('diagnostics', vim.tbl_map(function(d)
    return { code = d.code, line = d.lnum + 1, message = d.message,
             href = ((d.user_data or {}).lsp or {}).codeDescription and d.user_data.lsp.codeDescription.href or vim.NIL }
  end, diagnostics))
  local target = diagnostics[1]
  assert(target.code == RULE, 'expected code ' .. RULE .. ', got ' .. tostring(target.code))
  local description = ((target.user_data or {}).lsp or {}).codeDescription
  assert(description and type(description.href) == 'string' and description.href:find('require%-fence%-condition'),
    'the diagnostic has no codeDescription.href to the rule docs')

  local params = {
    textDocument = vim.lsp.util.make_text_document_params(),
    range = to_lsp(target).range,
    context = { diagnostics = { to_lsp(target) }, only = { 'quickfix' } },
  }
  local response, err = client.request_sync('textDocument/codeAction', params, 10000, 0)
  assert(response and not response.err, 'codeAction failed: ' .. vim.inspect(err or (response and response.err)))
  local actions = response.result or {}
  step('actions', vim.tbl_map(function(a) return a.title end, actions))
  local chosen
  for _, action in ipairs(actions) do
    if action.isPreferred then chosen = action break end
  end
  assert(chosen, 'no preferred quick fix among ' .. #actions .. ' action(s)')
  if not chosen.edit and chosen.data ~= nil then
    local resolved = client.request_sync('codeAction/resolve', chosen, 10000, 0)
    chosen = resolved and resolved.result or chosen
  end
  assert(chosen.edit, 'the preferred quick fix carries no edit')
  step('applied', chosen.title)
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  vim.cmd('write')
  step('written')

  assert(vim.wait(30000, function() return #fencelint_diagnostics() == 0 end, 50),
    'fencelint diagnostics did not clear after the fix: ' .. vim.inspect(vim.tbl_map(function(d) return d.message end, fencelint_diagnostics())))
  step('diagnostics_after_fix', 0)
  step('total_ms', math.floor((vim.loop.hrtime() - started) / 1e6))
end

vim.api.nvim_create_autocmd('VimEnter', {
  callback = function()
    local ok, err = pcall(run)
    if ok then finish(0) else result.error = tostring(err) finish(1) end
  end,
})
