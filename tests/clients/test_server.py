"""Black-box tests: the kernlint binary (`kernlint server`) driven by pytest-lsp, once per
recorded client capability set (VS Code, Neovim 0.11, Emacs).

Server command: env KL_SERVER_CMD (space separated), default `kernlint server` on PATH.
"""
import asyncio
import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER_CMD = os.environ.get("KL_SERVER_CMD", "kernlint server").split()
WORKSPACE = pathlib.Path(__file__).parent / "workspace"
SAMPLE = WORKSPACE / "kernels.py"
URI = SAMPLE.as_uri()
TEXT = SAMPLE.read_text()


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER_CMD),
    params=["visual-studio-code", "neovim@v0.11.0", "emacs"],
)
async def client(request, lsp_client: LanguageClient):
    # Real editors accept dynamic registrations (the server watches pyproject.toml).
    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def _register(params):
        return None

    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=WORKSPACE.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="ws")],
    )
    result = await lsp_client.initialize_session(params)
    lsp_client.init_result = result
    yield
    await lsp_client.shutdown_session()


def _pos(line, character):
    return {"text_document": types.TextDocumentIdentifier(uri=URI),
            "position": types.Position(line=line, character=character)}


async def _open(client: LanguageClient, text: str = TEXT):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text=text)))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def test_capabilities(client: LanguageClient):
    caps = client.init_result.capabilities
    assert client.init_result.server_info.name == "kernlint"
    assert list(caps.completion_provider.trigger_characters) == ["."]
    assert caps.hover_provider and caps.inlay_hint_provider and caps.definition_provider
    assert list(caps.execute_command_provider.commands) == ["kernlint.showPtx", "kernlint.runKernel"]


async def test_diagnostics_and_quick_fix(client: LanguageClient):
    await _open(client)
    diags = client.diagnostics[URI]
    kl101 = [d for d in diags if d.code == "KL101"]
    assert kl101 and kl101[0].range.start.line == 12, diags
    assert "kl101" in kl101[0].code_description.href
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=URI), range=kl101[0].range,
        context=types.CodeActionContext(diagnostics=kl101)))
    assert actions is not None


async def test_edit_clears_diagnostic(client: LanguageClient):
    await _open(client)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=12, character=4), end=types.Position(line=12, character=17)),
            text="out[0] = 1")]))
    for _ in range(20):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        if client.diagnostics.get(URI) is not None and not [d for d in client.diagnostics[URI] if d.code == "KL101"]:
            break
    assert not [d for d in client.diagnostics[URI] if d.code == "KL101"]


async def test_hover_types_and_docs(client: LanguageClient):
    await _open(client)
    hover = await client.text_document_hover_async(types.HoverParams(**(_pos(5, 4))))
    assert "i: int64" in hover.contents.value
    hover = await client.text_document_hover_async(types.HoverParams(**(_pos(5, 14))))
    assert "Absolute thread position" in hover.contents.value


async def test_completion_and_signature_help(client: LanguageClient):
    await _open(client, TEXT.replace("    if i < x.size:", "    cuda.atomic.\n    if i < x.size:"))
    result = await client.text_document_completion_async(types.CompletionParams(**(_pos(6, 16))))
    items = result.items if hasattr(result, "items") else result
    assert {"add", "cas", "max"} <= {i.label for i in items}
    help_ = await client.text_document_signature_help_async(types.SignatureHelpParams(**(_pos(5, 18))))
    assert help_.signatures[0].label.startswith("cuda.grid(ndim)")


async def test_inlay_hints_symbols_definition_references(client: LanguageClient):
    await _open(client)
    hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=URI),
        range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=20, character=0))))
    assert [(h.position.line, h.label) for h in hints] == [(5, ": int64")]
    symbols = await client.text_document_document_symbol_async(types.DocumentSymbolParams(
        text_document=types.TextDocumentIdentifier(uri=URI)))
    assert [s.name for s in symbols] == ["saxpy", "bad"]
    refs = await client.text_document_references_async(types.ReferenceParams(
        **(_pos(4, 5)), context=types.ReferenceContext(include_declaration=False)))
    assert [r.range.start.line for r in refs] == [16]
    definition = await client.text_document_definition_async(types.DefinitionParams(**(_pos(16, 5))))
    assert definition.range.start.line == 4


async def test_code_lens_and_custom_requests(client: LanguageClient):
    await _open(client)
    lenses = await client.text_document_code_lens_async(types.CodeLensParams(
        text_document=types.TextDocumentIdentifier(uri=URI)))
    assert [(l.range.start.line, l.command.title) for l in lenses] == [
        (3, "Show PTX"), (3, "Run on device"), (10, "Show PTX"), (10, "Run on device")]
    assert list(lenses[0].command.arguments) == [URI, "saxpy"]
    shown = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command=lenses[0].command.command, arguments=lenses[0].command.arguments))
    assert ".entry" in shown["ptx"]
    ptx = await client.protocol.send_request_async("kernlint/ptx", {"uri": URI, "kernel": "saxpy"})
    assert ".entry" in ptx.ptx
    with pytest.raises(Exception, match="arguments"):
        await client.protocol.send_request_async(
            "kernlint/run", {"uri": URI, "kernel": "saxpy", "grid": 4, "block": 256})


NOTEBOOK_URI = (WORKSPACE / "scale.ipynb").as_uri()
NOTEBOOK_CELLS = [
    "from numba import cuda\nimport numpy as np\n",
    "@cuda.jit\ndef scale(out, x):\n    i = cuda.grid(1)\n    out[i] = x[i] * 2\n",
    "x = np.ones(64, dtype=np.float32)\nout = np.zeros_like(x)\nscale[2, 32](out, x)\n",
]


def _cell(i):
    """A notebook cell's document URI, as VS Code names them."""
    return f"vscode-notebook-cell:{(WORKSPACE / 'scale.ipynb').as_posix()}#W{i}sZmlsZQ=="


async def _wait_diagnostics(client: LanguageClient, ready):
    for _ in range(40):
        if ready():
            return
        try:
            await asyncio.wait_for(client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), 10)
        except asyncio.TimeoutError:
            break
    assert ready(), client.diagnostics


async def test_notebook_cells(client: LanguageClient):
    sync = client.init_result.capabilities.notebook_document_sync
    assert sync.notebook_selector[0].notebook == "jupyter-notebook"
    cells = [types.NotebookCell(kind=types.NotebookCellKind.Code, document=_cell(i)) for i in range(3)]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=NOTEBOOK_URI, notebook_type="jupyter-notebook", version=1, cells=cells),
        cell_text_documents=[types.TextDocumentItem(uri=_cell(i), language_id="python", version=1, text=text)
                             for i, text in enumerate(NOTEBOOK_CELLS)]))
    await _wait_diagnostics(client, lambda: all(_cell(i) in client.diagnostics for i in range(3)))
    # Each cell its own findings, at cell-relative lines: `x[i] * 2` is float64 for the launch
    # with float32 arrays in the next cell.
    found = [[(d.code, d.range.start.line) for d in client.diagnostics[_cell(i)]] for i in range(3)]
    assert found == [[], [("KL401", 3)], [("KL403", 2)]], found
    # The kernel in cell 2 is typed from its launch in cell 3.
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=_cell(1)), position=types.Position(line=1, character=15)))
    assert "x: array(float32, 1d, C)" in hover.contents.value
    definition = await client.text_document_definition_async(types.DefinitionParams(
        text_document=types.TextDocumentIdentifier(uri=_cell(2)), position=types.Position(line=2, character=1)))
    assert (definition.uri, definition.range.start.line) == (_cell(1), 1)
    # Deleting the launch's cell clears its diagnostics.
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=2, uri=NOTEBOOK_URI),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
            structure=types.NotebookDocumentCellChangeStructure(
                array=types.NotebookCellArrayChange(start=2, delete_count=1),
                did_close=[types.TextDocumentIdentifier(uri=_cell(2))])))))
    await _wait_diagnostics(client, lambda: len(client.diagnostics[_cell(2)]) == 0)
    client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=NOTEBOOK_URI),
        cell_text_documents=[types.TextDocumentIdentifier(uri=_cell(i)) for i in range(2)]))
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=_cell(1)), position=types.Position(line=1, character=15)))
    assert hover is None
