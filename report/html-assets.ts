/**
 * The HTML report's one style sheet and one script, inlined: the page must open from a CI artifact
 * or a local disk with no network. The page's Content-Security-Policy allows exactly these two, by
 * hash, so no markup that slipped through could run or load anything.
 */

/** API families, in legend order; anything else a trace names is drawn as `other`. */
export const FAMILIES = ['clock', 'random', 'crypto', 'timers', 'fs', 'process', 'output'] as const;

export const STYLE = `
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #fff; --panel: #f6f8fa; --bad: #cf222e; --bad-bg: #ffebe9;
  --good: #1a7f37; --good-bg: #dafbe1; --add-bg: #dafbe1; --del-bg: #ffebe9; --mark: #fff8c5;
  --clock: #0969da; --random: #8250df; --crypto: #bc4c00; --timers: #1b7c83; --fs: #1a7f37; --process: #6e7781; --output: #bf3989; --other: #57606a; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --bg: #0d1117; --panel: #151b23; --bad: #ff7b72; --bad-bg: #3c1618;
    --good: #3fb950; --good-bg: #12261e; --add-bg: #12261e; --del-bg: #3c1618; --mark: #3b2e00;
    --clock: #4493f8; --random: #ab7df8; --crypto: #f0883e; --timers: #39c5cf; --fs: #3fb950; --process: #9198a1; --output: #f778ba; }
}
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 90rem; padding: 1.5rem; font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; } h2 { font-size: 1.15rem; margin: 2rem 0 .75rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
section, header { margin-bottom: 1rem; }
.muted { color: var(--muted); }
.verdict { padding: 1rem 1.25rem; border-radius: 8px; border: 1px solid var(--line); }
.verdict.diverge { background: var(--bad-bg); border-color: var(--bad); } .verdict.agree { background: var(--good-bg); border-color: var(--good); }
.verdict.diverge h1 { color: var(--bad); } .verdict.agree h1 { color: var(--good); }
.culprit { font-size: 1.2rem; margin: .5rem 0; }
.badge { display: inline-block; padding: 0 .5rem; border-radius: 1rem; border: 1px solid var(--line); font-size: 12px; background: var(--panel); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: .75rem 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre.source { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem 0; overflow-x: auto; }
pre.source span { display: block; padding: 0 .75rem; } pre.source .hit { background: var(--mark); }
.replay { display: flex; gap: .5rem; align-items: center; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
.replay code { flex: 1; overflow-wrap: anywhere; }
button { font: inherit; padding: .2rem .75rem; border-radius: 6px; border: 1px solid var(--line); background: var(--bg); color: var(--fg); cursor: pointer; }
table { border-collapse: collapse; } th, td { text-align: left; padding: .2rem .75rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; } tr.differs td { font-weight: 600; }
.chip { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; margin-right: .4rem; vertical-align: -1px; background: var(--fam); }
${FAMILIES.map((family) => `.fam-${family} { --fam: var(--${family}); }`).join(' ')} .fam-other { --fam: var(--other); }
.legend { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: .5rem 0; }
svg.overview { width: 100%; height: 3rem; display: block; margin: .5rem 0; }
svg.overview .span { fill: var(--line); } svg.overview .window { fill: var(--clock); opacity: .6; } svg.overview .at { stroke: var(--bad); stroke-width: 3; }
svg.overview text { font-size: 11px; fill: var(--muted); }
.lanes { position: relative; max-height: 36rem; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.lane-head, .op { display: grid; grid-template-columns: minmax(0, 1fr) 2rem minmax(0, 1fr); }
.lane-head { position: sticky; top: 0; z-index: 1; background: var(--panel); font-weight: 600; border-bottom: 1px solid var(--line); }
.lane-head > div, .call, .kind { padding: .1rem .5rem; }
.op { border-bottom: 1px solid var(--panel); }
.call { display: grid; grid-template-columns: 4.5rem 10rem minmax(4rem, 1fr) minmax(0, 1.4fr); gap: .5rem; border-left: 4px solid var(--fam); white-space: nowrap; }
.call > span { overflow: hidden; text-overflow: ellipsis; } .call .site { color: var(--muted); }
.kind { text-align: center; color: var(--muted); font-weight: 700; }
.op-removed .a, .op-removed .kind { background: var(--del-bg); } .op-inserted .b, .op-inserted .kind { background: var(--add-bg); }
.op-changed .kind, .op-changed .val { color: var(--bad); }
.op.divergence { outline: 3px solid var(--bad); outline-offset: -3px; background: var(--mark); }
.gap, .fold > summary { padding: .3rem .75rem; color: var(--muted); background: var(--panel); font-style: italic; }
.fold > summary { cursor: pointer; } .fold[open] > summary { border-bottom: 1px dashed var(--line); }
.output-divergence { padding: .4rem .75rem; }
.stacks { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.stack ol { list-style: none; margin: 0; padding: 0; } .stack li { padding: .1rem .5rem; overflow-wrap: anywhere; }
.pkg { border: 1px solid var(--line); border-left: 4px solid var(--crypto); border-radius: 4px; margin: .25rem 0; }
.pkg > div { padding: .1rem .5rem; background: var(--panel); font-weight: 600; }
.own { border-left: 4px solid var(--clock); margin: .25rem 0; } li.first-party { background: var(--mark); }
.grid td.agree { color: var(--good); } .grid td.diverge, .grid td.platform-specific, .grid td.node-specific { color: var(--bad); font-weight: 600; }
`;

/**
 * The copy button, and the lanes scrolled to the first divergence. The clipboard API needs a secure
 * context, which a page opened from disk may not be: the selection and execCommand are the fallback.
 */
export const SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    try {
      await navigator.clipboard.writeText(source.textContent);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      document.execCommand('copy');
    }
    button.textContent = 'Copied';
  });
}
const lanes = document.querySelector('.lanes');
const divergence = document.getElementById('divergence');
if (lanes && divergence) lanes.scrollTop = divergence.offsetTop - lanes.clientHeight / 3;
`;
