/** The dashboard's stylesheet, shipped inside the package so the dashboard works offline. */
export const STYLE_CSS = `
:root {
  --bg: #f6f7f9; --panel: #fff; --text: #1d2330; --muted: #5d6675; --line: #e2e5ea; --accent: #2358c7;
  --ok: #18794e; --ok-bg: #e6f4ec; --warn: #9a5b00; --warn-bg: #fdf2dc; --bad: #b42318; --bad-bg: #fde8e6;
  --run: #1d5fd1; --run-bg: #e5eefc; --idle: #4b5565; --idle-bg: #eef0f3; --code-bg: #f1f3f6;
  --radius: 8px; --mono: ui-monospace, "SF Mono", "Cascadia Mono", "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #14171c; --panel: #1c2027; --text: #e4e7ec; --muted: #9aa3b2; --line: #2e343e; --accent: #7aa7ff;
    --ok: #5fd49a; --ok-bg: #15352a; --warn: #f5c46b; --warn-bg: #3a2f16; --bad: #ff8a80; --bad-bg: #3d1c1a;
    --run: #8ab4ff; --run-bg: #1b2b48; --idle: #b8c0cc; --idle-bg: #272c35; --code-bg: #232833;
  }
}
* { box-sizing: border-box; }
html { font-size: 15px; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.5;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
a { color: var(--accent); text-decoration: none; } a:hover { text-decoration: underline; }
header.top { display: flex; flex-wrap: wrap; align-items: center; gap: .25rem 1.5rem; padding: .6rem 1.5rem;
  background: var(--panel); border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 5; }
.brand { font-weight: 700; font-size: 1.1rem; color: var(--text); letter-spacing: .01em; }
nav { display: flex; flex-wrap: wrap; gap: .15rem; flex: 1; }
nav a { padding: .35rem .7rem; border-radius: 6px; color: var(--muted); font-weight: 500; }
nav a[aria-current="page"] { background: var(--run-bg); color: var(--run); }
nav a:hover { text-decoration: none; color: var(--text); }
.live { font-size: .85rem; color: var(--muted); white-space: nowrap; }
.live::before { content: "●"; margin-right: .35rem; color: var(--idle); }
.live.on::before { color: var(--ok); }
main { max-width: 1320px; margin: 0 auto; padding: 1.25rem 1.5rem 3rem; }
h1 { font-size: 1.45rem; margin: .2rem 0 1rem; font-weight: 650; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; font-weight: 650; }
.muted { color: var(--muted); }
.small { font-size: .85rem; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); }
.table-wrap { overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); }
table { border-collapse: collapse; width: 100%; font-size: .93rem; }
th, td { padding: .5rem .75rem; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); font-weight: 600; white-space: nowrap; background: var(--panel); }
tr:last-child td { border-bottom: 0; }
tbody tr:hover { background: color-mix(in srgb, var(--run-bg) 35%, transparent); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.zero { color: var(--muted); }
td.mono, td.nowrap { white-space: nowrap; }
time .abs { white-space: nowrap; } time .rel { color: var(--muted); font-size: .85em; white-space: nowrap; }
code, pre, .mono { font-family: var(--mono); font-size: .85rem; }
code { background: var(--code-bg); padding: .05rem .3rem; border-radius: 4px; }
pre { background: var(--code-bg); padding: .75rem; border-radius: 6px; overflow: auto; max-height: 28rem; margin: .4rem 0; white-space: pre-wrap; word-break: break-word; }
.badge { display: inline-block; padding: .08rem .55rem; border-radius: 999px; font-size: .8rem; font-weight: 600; white-space: nowrap; }
.b-ok { color: var(--ok); background: var(--ok-bg); } .b-warn { color: var(--warn); background: var(--warn-bg); }
.b-bad { color: var(--bad); background: var(--bad-bg); } .b-run { color: var(--run); background: var(--run-bg); }
.b-idle { color: var(--idle); background: var(--idle-bg); }
.b-run::before { content: ""; display: inline-block; width: .5rem; height: .5rem; border-radius: 50%; background: currentColor; margin-right: .35rem; animation: pulse 1.2s ease-in-out infinite; }
@keyframes pulse { 50% { opacity: .25; } }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(380px, 1fr)); gap: 1rem; }
.card { padding: 1rem 1.1rem; }
.card.failing, .card.paused { border-left: 4px solid var(--bad); } .card.running { border-left: 4px solid var(--run); }
table.shops tr.failing td:first-child { box-shadow: inset 4px 0 0 var(--bad); } table.shops td { vertical-align: top; }
.stat a { color: inherit; text-decoration: none; display: block; }
.card-head { display: flex; align-items: center; justify-content: space-between; gap: .75rem; margin-bottom: .6rem; }
.card-head h2 { margin: 0; font-size: 1.05rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0 0 .8rem; font-size: .92rem; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.counts { display: flex; flex-wrap: wrap; gap: .35rem 1.1rem; font-variant-numeric: tabular-nums; }
.counts b { font-weight: 650; }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
button, .button { font: inherit; font-size: .9rem; font-weight: 600; padding: .4rem .9rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: #fff; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); }
button.danger { background: transparent; color: var(--bad); border-color: var(--bad); }
button:disabled { opacity: .5; cursor: default; }
form.filters { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: flex-end; margin-bottom: 1rem; padding: .8rem 1rem; }
form.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .2rem; }
input, select { font: inherit; font-size: .92rem; padding: .35rem .5rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--text); }
input[type="search"] { min-width: 18rem; }
.flash { padding: .6rem 1rem; border-radius: var(--radius); margin-bottom: 1rem; }
.flash.ok { background: var(--ok-bg); color: var(--ok); } .flash.bad { background: var(--bad-bg); color: var(--bad); }
.issue { margin: .1rem 0; } .issue code { font-weight: 600; }
.issue.error code { color: var(--bad); } .issue.warning code { color: var(--warn); }
details summary { cursor: pointer; color: var(--accent); font-size: .88rem; }
table.diff { font-size: .85rem; margin: .3rem 0; } table.diff td { padding: .25rem .5rem; }
table.diff td.before { background: var(--bad-bg); } table.diff td.after { background: var(--ok-bg); }
.summary-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: .6rem; margin-bottom: 1rem; }
.stat { padding: .6rem .8rem; } .stat .v { font-size: 1.35rem; font-weight: 650; font-variant-numeric: tabular-nums; } .stat .k { font-size: .8rem; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 1rem; }
.chart { padding: .8rem 1rem; } .chart svg { width: 100%; height: auto; display: block; }
.chart .legend { display: flex; gap: 1rem; font-size: .82rem; color: var(--muted); }
.sw { display: inline-block; width: .7rem; height: .7rem; border-radius: 2px; margin-right: .3rem; vertical-align: -1px; }
svg .grid { stroke: var(--line); } svg .axis { fill: var(--muted); font-size: 11px; font-family: system-ui, sans-serif; }
svg .records { fill: color-mix(in srgb, var(--run) 25%, transparent); stroke: var(--run); stroke-width: 1.5; }
svg .errbar { fill: var(--bad); }
svg .band { fill: transparent; } svg .band:hover { fill: color-mix(in srgb, var(--run) 10%, transparent); }
.pager { display: flex; gap: 1rem; align-items: center; margin-top: .8rem; }
.empty { padding: 1.5rem; text-align: center; color: var(--muted); }
.preview-records { display: flex; flex-direction: column; gap: 1rem; }
.preview-record { padding: .9rem 1.1rem; } .preview-record.fail { border-left: 4px solid var(--bad); }
.preview-record.create, .preview-record.update { border-left: 4px solid var(--run); }
.preview-record h2 { font-size: 1rem; } .preview-record h3 { font-size: .78rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: .6rem 0 .2rem; font-weight: 600; }
.preview-record .findings { margin: .4rem 0; }
.pv-grid { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0 .9rem; }
.pv-grid .pv-changes { grid-column: 1 / -1; }
.pv-grid pre { max-height: 18rem; } .pv-changes { overflow-x: auto; }
.preview-error, .preview-note { padding: 1rem 1.1rem; } .preview-error h2 { margin-top: 0; }
.login { max-width: 26rem; margin: 4rem auto; padding: 1.5rem; }
.login label { display: block; margin: .8rem 0; } .login input { width: 100%; }
@media (max-width: 720px) {
  html { font-size: 14px; }
  header.top { padding: .5rem .8rem; position: static; }
  nav { order: 3; flex-basis: 100%; }
  main { padding: 1rem .8rem 2rem; }
  .cards, .charts { grid-template-columns: 1fr; }
  .pv-grid { grid-template-columns: minmax(0, 1fr); }
  input[type="search"] { min-width: 0; width: 100%; }
  th, td { padding: .4rem .5rem; }
  td.hide-narrow, th.hide-narrow { display: none; }
  time .rel { display: block; }
}
`;
