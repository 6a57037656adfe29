// The HTML of the "Run on device" result panel.

export interface ArrayResult {
  arg: number;
  dtype: string;
  shape: number[];
  min: number | null;
  max: number | null;
  mean: number | null;
  head: number[];
  /** All values in row-major order, when the server sends them (small arrays). */
  values?: number[];
  /** Larger 2-D arrays: a row-major image, each pixel the mean of the elements it covers. */
  heat?: { rows: number; cols: number; values: number[] };
}

export interface RunResult {
  kernel: string;
  device: string;
  elapsedMs: number;
  arrays: ArrayResult[];
  messages: string[];
}

function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function num(v: number | null | undefined): string {
  if (v === null || v === undefined) return '–';
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(4) : String(Number(v.toPrecision(6)));
}

/** NumPy's `<f4` as `float32`; other names unchanged. */
export function dtypeName(descr: string): string {
  const m = /^[<>|=]?([fiucb])(\d+)$/.exec(descr);
  if (!m) return descr;
  const bytes = Number(m[2]);
  switch (m[1]) {
    case 'f': return `float${bytes * 8}`;
    case 'i': return `int${bytes * 8}`;
    case 'u': return `uint${bytes * 8}`;
    case 'c': return `complex${bytes * 8}`;
    case 'b': return 'bool';
  }
  return descr;
}

/** A 2-D array's heat map: every value when the result holds them all, else the server's averaged image. */
export function heatMap(a: ArrayResult): { rows: number; cols: number; values: number[]; averaged: boolean } | undefined {
  if (a.shape.length !== 2) return undefined;
  const [rows, cols] = a.shape;
  const size = rows * cols;
  if (size === 0) return undefined;
  if (a.values && a.values.length === size) return { rows, cols, values: a.values, averaged: false };
  if (a.heat && a.heat.values.length === a.heat.rows * a.heat.cols && a.heat.values.length > 0) {
    return { ...a.heat, averaged: a.heat.rows !== rows || a.heat.cols !== cols };
  }
  return undefined;
}

export function resultHtml(r: RunResult, launch: { grid: string; block: string }, nonce: string, params: string[] = []): string {
  const arrays = r.arrays
    .map((a, i) => {
      const dtype = dtypeName(a.dtype);
      const name = params[a.arg] ? ` <code>${esc(params[a.arg])}</code>` : '';
      const heat = heatMap(a);
      const canvas = heat
        ? `<canvas class="heat" id="heat${i}" data-rows="${heat.rows}" data-cols="${heat.cols}" data-min="${a.min ?? 0}" data-max="${a.max ?? 0}" data-values="${esc(JSON.stringify(heat.values))}"></canvas>` +
          (heat.averaged ? `<p class="note">heat map: ${heat.rows} × ${heat.cols} pixels, each the mean of the elements it covers</p>` : '')
        : a.shape.length === 2
          ? `<p class="note">heat map: the server sent no image for this array</p>`
          : '';
      return `<section class="array" data-arg="${a.arg}">
  <h2>argument ${a.arg + 1}${name} <span class="dim">${esc(dtype)}[${a.shape.map(esc).join(', ')}]</span></h2>
  <table>
    <tr><th>shape</th><td class="shape">(${a.shape.map(esc).join(', ')}${a.shape.length === 1 ? ',' : ''})</td></tr>
    <tr><th>dtype</th><td class="dtype">${esc(dtype)}</td></tr>
    <tr><th>min</th><td class="min">${num(a.min)}</td></tr>
    <tr><th>max</th><td class="max">${num(a.max)}</td></tr>
    <tr><th>mean</th><td class="mean">${num(a.mean)}</td></tr>
    <tr><th>first values</th><td class="head">${a.head.map(num).join(', ')}${a.head.length > 0 ? ' …' : ''}</td></tr>
  </table>
  ${canvas}
</section>`;
    })
    .join('\n');
  const messages = r.messages.length
    ? `<ul class="messages">${r.messages
        .map((m) => {
          const line = /^line (\d+):/.exec(m);
          return line
            ? `<li><a href="#" data-line="${line[1]}">line ${line[1]}</a>${esc(m.slice(line[0].length))}</li>`
            : `<li>${esc(m)}</li>`;
        })
        .join('')}</ul>`
    : '<p class="clean">No sanitizer findings.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Run: ${esc(r.kernel)}</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
  h1 { font-size: 1.3em; } h2 { font-size: 1.1em; margin-bottom: .3em; }
  .dim, .note { color: var(--vscode-descriptionForeground); font-weight: normal; }
  table { border-collapse: collapse; } th { text-align: left; padding-right: 1.5em; font-weight: 600; }
  td { font-family: var(--vscode-editor-font-family); }
  .array { margin-bottom: 1.2em; }
  .heat { image-rendering: pixelated; margin-top: .5em; border: 1px solid var(--vscode-panel-border); }
  .messages li { font-family: var(--vscode-editor-font-family); }
  a { color: var(--vscode-textLink-foreground); }
</style></head>
<body>
<h1 id="summary">${esc(r.kernel)} ran on ${esc(r.device)} in <span id="elapsed">${num(r.elapsedMs)}</span> ms</h1>
<p class="dim">grid ${esc(launch.grid)}, block ${esc(launch.block)}</p>
${arrays || '<p>No array arguments.</p>'}
<h2>Sanitizer</h2>
${messages}
<script nonce="${nonce}">
  const vscode = acquireVsCodeApi();
  for (const a of document.querySelectorAll('a[data-line]')) {
    a.addEventListener('click', (e) => { e.preventDefault(); vscode.postMessage({ type: 'reveal', line: Number(a.dataset.line) }); });
  }
  // viridis-like colour map
  const stops = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
  function colour(t) {
    t = Math.min(1, Math.max(0, t)) * (stops.length - 1);
    const i = Math.min(stops.length - 2, Math.floor(t)), f = t - i;
    return stops[i].map((c, k) => Math.round(c + f * (stops[i + 1][k] - c)));
  }
  for (const c of document.querySelectorAll('canvas.heat')) {
    const rows = Number(c.dataset.rows), cols = Number(c.dataset.cols);
    const lo = Number(c.dataset.min), hi = Number(c.dataset.max);
    const values = JSON.parse(c.dataset.values);
    c.width = cols; c.height = rows;
    const scale = Math.max(1, Math.floor(Math.min(512 / cols, 512 / rows)));
    c.style.width = cols * scale + 'px'; c.style.height = rows * scale + 'px';
    const ctx = c.getContext('2d');
    const img = ctx.createImageData(cols, rows);
    for (let k = 0; k < rows * cols; k++) {
      const [r, g, b] = colour(hi > lo ? (values[k] - lo) / (hi - lo) : 0.5);
      img.data.set([r, g, b, 255], 4 * k);
    }
    ctx.putImageData(img, 0, 0);
  }
</script>
</body></html>`;
}
