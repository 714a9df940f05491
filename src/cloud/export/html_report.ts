/**
 * The HTML report: one self-contained page (no external URL; a content
 * security policy forbids loading anything) that a person opens in a
 * browser. Summary figures, open findings by severity, the top risks and the
 * findings table are rendered as HTML; a small inline script adds the
 * interactive graph view (an SVG laid out in the page, with zoom, pan and
 * node selection), severity filters and the detail panel of a clicked
 * finding or node, from data embedded as JSON.
 *
 * @module
 */

import { relationshipGraph } from "../graph/relationship_graph.ts";
import { topRisks } from "../graph/risk.ts";
import { SEVERITIES, type Severity } from "../model/enums.ts";
import { displayId, type Finding, riskScore } from "../model/records.ts";
import type { Dataset } from "../workspace/dataset.ts";
import { datasetSummary } from "../workspace/summary.ts";

/** Most graph nodes the page draws (the riskiest first); the rest are counted, not drawn. */
export const HTML_GRAPH_NODE_CAP = 400;

/** Most findings the page lists (highest risk first). */
export const HTML_FINDING_CAP = 2000;

/** Options of {@link htmlReport}. */
export interface HtmlReportOptions {
  /** The generation time shown. @default now */
  generatedAt?: string;
  /** Graph nodes drawn at most. @default HTML_GRAPH_NODE_CAP */
  graphNodeCap?: number;
}

/** The summary figures the page shows, keyed as in `dataset_summary`. */
export const HTML_SUMMARY_FIGURES: readonly (readonly [string, string])[] = [
  ["total_assets", "Assets"],
  ["total_edges", "Edges"],
  ["total_findings", "Findings"],
  ["open_findings", "Open findings"],
  ["suppressed_findings", "Suppressed"],
  ["internet_exposed", "Internet-exposed assets"],
  ["accounts", "Accounts"],
  ["regions", "Regions"],
  ["cross_account_edges", "Cross-account edges"],
  ["unlinked_assets", "Unlinked assets"],
];

const SEVERITY_COLOURS: Record<Severity, string> = {
  CRITICAL: "#8b0000",
  HIGH: "#d9480f",
  MEDIUM: "#e8a200",
  LOW: "#2f7ebc",
  INFO: "#6c757d",
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) =>
      c === "&"
        ? "&amp;"
        : c === "<"
        ? "&lt;"
        : c === ">"
        ? "&gt;"
        : c === '"'
        ? "&quot;"
        : "&#39;",
  );
}

/** JSON safe to embed in a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

const SEVERITY_RANK: Record<Severity, number> = {
  CRITICAL: 0,
  HIGH: 1,
  MEDIUM: 2,
  LOW: 3,
  INFO: 4,
};

function byRisk(a: Finding, b: Finding): number {
  return riskScore(b) - riskScore(a) || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

interface PageNode {
  id: string;
  name: string;
  type: string;
  provider: string;
  exposed: boolean;
  external: boolean;
  findings: number;
  worst: Severity | null;
}

interface PageGraph {
  nodes: PageNode[];
  links: { source: string; target: string; type: string }[];
  total_nodes: number;
}

/** The nodes drawn: every node when under the cap, else the riskiest ones. */
function graphData(dataset: Dataset, cap: number): PageGraph {
  const graph = relationshipGraph(dataset);
  const nodes: PageNode[] = [];
  graph.forEachNode((id, attributes) => {
    const asset = dataset.asset(id);
    const open = asset ? dataset.findingsFor(id).filter((f) => !f.is_suppressed) : [];
    const worst = SEVERITIES.find((s) => open.some((f) => f.severity === s)) ?? null;
    nodes.push({
      id,
      name: asset?.name ?? String(attributes.name ?? id),
      type: asset?.asset_type ?? "EXTERNAL",
      provider: asset?.provider ?? "EXTERNAL",
      exposed: asset?.is_internet_exposed ?? false,
      external: asset === undefined,
      findings: open.length,
      worst,
    });
  });
  const total = nodes.length;
  let shown = nodes;
  if (nodes.length > cap) {
    const weight = (n: PageNode): number =>
      (n.worst === null ? 0 : 10 - SEVERITY_RANK[n.worst]) * 1000 + n.findings * 10 +
      (n.exposed ? 5 : 0);
    shown = [...nodes].sort((a, b) => weight(b) - weight(a)).slice(0, cap);
  }
  const kept = new Set(shown.map((n) => n.id));
  const links: PageGraph["links"] = [];
  graph.forEachEdge((_key, attributes, source, target) => {
    if (kept.has(source) && kept.has(target)) {
      links.push({ source, target, type: String(attributes.edge_type ?? "") });
    }
  });
  return { nodes: shown, links, total_nodes: total };
}

function figureHtml(key: string, label: string, value: number): string {
  return `<div class="figure" data-figure="${key}"><span class="value">${value}</span>` +
    `<span class="label">${escapeHtml(label)}</span></div>`;
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#f4f6f8}
header{background:#1d2b3a;color:#fff;padding:16px 24px}header h1{margin:0;font-size:1.4em}
header p{margin:4px 0 0;opacity:.8}main{padding:16px 24px;display:grid;gap:16px}
section{background:#fff;border-radius:8px;padding:12px 16px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:1.1em;margin:4px 0 12px}.figures{display:flex;flex-wrap:wrap;gap:12px}
.figure{border:1px solid #dde2e6;border-radius:6px;padding:8px 12px;min-width:110px}
.figure .value{display:block;font-size:1.6em;font-weight:600}.figure .label{font-size:.85em;color:#56606a}
.sev{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:.8em;font-weight:600}
.bars{display:grid;grid-template-columns:90px 1fr 50px;gap:6px;align-items:center}
.bar{height:14px;border-radius:3px}button.sev-filter{cursor:pointer;border:none}
table{border-collapse:collapse;width:100%;font-size:.9em}th,td{text-align:left;padding:5px 8px;border-bottom:1px solid #eceff1}
tr.finding,tr.risk{cursor:pointer}tr.finding:hover,tr.finding.selected{background:#eef4fb}
#graph-wrap{position:relative}#graph{width:100%;height:520px;border:1px solid #dde2e6;border-radius:6px;background:#fbfcfd;cursor:grab}
#graph .link{stroke:#9aa5b1;stroke-opacity:.6}#graph .node{stroke:#fff;stroke-width:1.5;cursor:pointer}
#graph .node.selected{stroke:#000;stroke-width:3}#graph text{font-size:11px;fill:#333;pointer-events:none}
.detail{border-left:4px solid #2f7ebc;padding:8px 12px;background:#f8fafc;white-space:pre-wrap}
.muted{color:#6c757d;font-size:.85em}.layout{display:grid;grid-template-columns:2fr 1fr;gap:16px}
@media (max-width:900px){.layout{grid-template-columns:1fr}}
`;

const SCRIPT = `
(function(){
"use strict";
var data=JSON.parse(document.getElementById("report-data").textContent);
var colours=data.colours;var byId={};data.findings.forEach(function(f){byId[f.id]=f;});
function el(tag,attrs,text){var e=document.createElement(tag);for(var k in attrs)e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;return e;}
function row(dl,k,v){if(v===null||v===undefined||v==="")return;dl.appendChild(el("dt",{},k));dl.appendChild(el("dd",{},String(v)));}
var detail=document.getElementById("finding-detail");
function showFinding(id){var f=byId[id];if(!f)return;
document.querySelectorAll("tr.finding.selected").forEach(function(r){r.classList.remove("selected");});
var tr=document.querySelector('tr.finding[data-finding-id="'+CSS.escape(id)+'"]');if(tr)tr.classList.add("selected");
detail.replaceChildren();detail.hidden=false;detail.setAttribute("data-finding-id",id);
var h=el("h3",{},f.title);detail.appendChild(h);
var s=el("span",{"class":"sev"},f.severity);s.style.background=colours[f.severity];detail.appendChild(s);
var dl=el("dl",{});row(dl,"Finding id",f.id);row(dl,"Risk score",f.risk_score);row(dl,"Resource",f.resource);
row(dl,"Asset",f.asset_name);row(dl,"Source tool",f.source_tool);row(dl,"Frameworks",f.frameworks.join(", "));
row(dl,"Suppressed",f.suppressed?"yes":"");row(dl,"Description",f.description);row(dl,"Evidence",f.evidence);
row(dl,"Remediation",f.remediation);detail.appendChild(dl);
if(f.asset_id)selectNode(f.asset_id,false);
if(location.hash!=="#finding="+encodeURIComponent(id))history.replaceState(null,"","#finding="+encodeURIComponent(id));}
document.querySelectorAll("tr.finding").forEach(function(tr){tr.addEventListener("click",function(){showFinding(tr.getAttribute("data-finding-id"));detail.scrollIntoView({block:"nearest"});});});
var active=null;
document.querySelectorAll("button.sev-filter").forEach(function(b){b.addEventListener("click",function(){
var sev=b.getAttribute("data-severity");active=active===sev?null:sev;
document.querySelectorAll("tr.finding").forEach(function(tr){tr.hidden=active!==null&&tr.getAttribute("data-severity")!==active;});
document.getElementById("filter-note").textContent=active?("Showing "+active+" findings; click again for all."):"";});});
/* graph */
var svg=document.getElementById("graph");var NS=svg.namespaceURI;
var nodes=data.graph.nodes.map(function(n,i){var a=2*Math.PI*i/Math.max(1,data.graph.nodes.length);return Object.assign({x:Math.cos(a)*300,y:Math.sin(a)*250,vx:0,vy:0},n);});
var index={};nodes.forEach(function(n,i){index[n.id]=i;});
var links=data.graph.links.map(function(l){return {s:index[l.source],t:index[l.target],type:l.type};}).filter(function(l){return l.s!==undefined&&l.t!==undefined;});
var n=nodes.length;var W=1000,H=700;var k=Math.sqrt(W*H/Math.max(1,n))*0.45;
var iterations=Math.max(30,Math.min(300,Math.floor(3e7/Math.max(1,n*n))));
for(var it=0;it<iterations;it++){var temp=(W/8)*(1-it/iterations)+1;
nodes.forEach(function(p){p.vx=0;p.vy=0;});
for(var i=0;i<n;i++){var a=nodes[i];for(var j=i+1;j<n;j++){var b=nodes[j];var dx=a.x-b.x,dy=a.y-b.y;var d=Math.sqrt(dx*dx+dy*dy)||0.01;var f=k*k/d;a.vx+=dx/d*f;a.vy+=dy/d*f;b.vx-=dx/d*f;b.vy-=dy/d*f;}}
links.forEach(function(l){if(l.s===l.t)return;var a=nodes[l.s],b=nodes[l.t];var dx=a.x-b.x,dy=a.y-b.y;var d=Math.sqrt(dx*dx+dy*dy)||0.01;var f=d*d/k;a.vx-=dx/d*f;a.vy-=dy/d*f;b.vx+=dx/d*f;b.vy+=dy/d*f;});
nodes.forEach(function(p){p.vx-=p.x*0.1*k/100;p.vy-=p.y*0.1*k/100;var len=Math.sqrt(p.vx*p.vx+p.vy*p.vy)||0.01;var step=Math.min(len,temp);p.x+=p.vx/len*step;p.y+=p.vy/len*step;
p.x=Math.max(-W/2,Math.min(W/2,p.x));p.y=Math.max(-H/2,Math.min(H/2,p.y));});}
var minX=Infinity,minY=Infinity,maxX=-Infinity,maxY=-Infinity;nodes.forEach(function(p){minX=Math.min(minX,p.x);minY=Math.min(minY,p.y);maxX=Math.max(maxX,p.x);maxY=Math.max(maxY,p.y);});
if(n===0){minX=minY=-100;maxX=maxY=100;}
var view={x:minX-40,y:minY-40,w:Math.max(80,maxX-minX+80),h:Math.max(80,maxY-minY+80)};
function applyView(){svg.setAttribute("viewBox",view.x+" "+view.y+" "+view.w+" "+view.h);}applyView();
var gLinks=document.createElementNS(NS,"g");var gNodes=document.createElementNS(NS,"g");svg.appendChild(gLinks);svg.appendChild(gNodes);
links.forEach(function(l){var line=document.createElementNS(NS,"line");line.setAttribute("class","link");line.setAttribute("x1",nodes[l.s].x);line.setAttribute("y1",nodes[l.s].y);line.setAttribute("x2",nodes[l.t].x);line.setAttribute("y2",nodes[l.t].y);var t=document.createElementNS(NS,"title");t.textContent=l.type;line.appendChild(t);gLinks.appendChild(line);});
var circles={};
nodes.forEach(function(p){var c=document.createElementNS(NS,"circle");c.setAttribute("class","node");c.setAttribute("data-id",p.id);c.setAttribute("cx",p.x);c.setAttribute("cy",p.y);
c.setAttribute("r",p.external?6:9+Math.min(8,p.findings*3));c.setAttribute("fill",p.worst?colours[p.worst]:(p.external?"#adb5bd":(p.exposed?"#7048e8":"#20c997")));
var t=document.createElementNS(NS,"title");t.textContent=p.name+" ("+p.type+")";c.appendChild(t);c.addEventListener("click",function(ev){ev.stopPropagation();selectNode(p.id,true);});
gNodes.appendChild(c);circles[p.id]=c;if(n<=80){var label=document.createElementNS(NS,"text");label.setAttribute("x",p.x+12);label.setAttribute("y",p.y+3);label.textContent=p.name;gNodes.appendChild(label);}});
var nodeInfo=document.getElementById("node-detail");
function selectNode(id,scroll){Object.keys(circles).forEach(function(k){circles[k].classList.remove("selected");});var c=circles[id];if(c)c.classList.add("selected");
var p=nodes[index[id]];if(!p)return;nodeInfo.replaceChildren();nodeInfo.hidden=false;nodeInfo.setAttribute("data-node-id",id);
nodeInfo.appendChild(el("h3",{},p.name));var dl=el("dl",{});row(dl,"Id",p.id);row(dl,"Type",p.type);row(dl,"Provider",p.provider);row(dl,"Internet-exposed",p.exposed?"yes":"no");row(dl,"Open findings",p.findings);nodeInfo.appendChild(dl);
var list=el("ul",{});data.findings.filter(function(f){return f.asset_id===id;}).forEach(function(f){var li=el("li",{});var a=el("a",{href:"#finding="+encodeURIComponent(f.id),"data-finding-id":f.id},f.severity+" - "+f.title);a.addEventListener("click",function(ev){ev.preventDefault();showFinding(f.id);});li.appendChild(a);list.appendChild(li);});
nodeInfo.appendChild(list);if(scroll)nodeInfo.scrollIntoView({block:"nearest"});}
document.querySelectorAll("tr.risk").forEach(function(tr){tr.addEventListener("click",function(){selectNode(tr.getAttribute("data-asset-id"),true);});});
svg.addEventListener("wheel",function(ev){ev.preventDefault();var k=ev.deltaY>0?1.15:1/1.15;var r=svg.getBoundingClientRect();var mx=view.x+(ev.clientX-r.left)/r.width*view.w;var my=view.y+(ev.clientY-r.top)/r.height*view.h;
view.x=mx-(mx-view.x)*k;view.y=my-(my-view.y)*k;view.w*=k;view.h*=k;applyView();},{passive:false});
var drag=null;svg.addEventListener("mousedown",function(ev){drag={x:ev.clientX,y:ev.clientY,vx:view.x,vy:view.y};svg.style.cursor="grabbing";});
window.addEventListener("mousemove",function(ev){if(!drag)return;var r=svg.getBoundingClientRect();view.x=drag.vx-(ev.clientX-drag.x)/r.width*view.w;view.y=drag.vy-(ev.clientY-drag.y)/r.height*view.h;applyView();});
window.addEventListener("mouseup",function(){drag=null;svg.style.cursor="grab";});
var m=/^#finding=(.+)$/.exec(location.hash);if(m)showFinding(decodeURIComponent(m[1]));
document.body.setAttribute("data-ready","true");
})();
`;

/**
 * The report page of a dataset.
 *
 * @example
 * ```ts
 * import { loadDemo } from "../demo/load_demo.ts";
 * import { Workspace } from "../workspace/workspace.ts";
 * import { htmlReport } from "./html_report.ts";
 * const workspace = new Workspace();
 * loadDemo(workspace);
 * const page = htmlReport(workspace.dataset("sample"));
 * ```
 */
export function htmlReport(dataset: Dataset, options: HtmlReportOptions = {}): string {
  const summary = datasetSummary(dataset);
  const generatedAt = options.generatedAt ??
    new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const findings = [...dataset.records.findings].sort(byRisk);
  const listed = findings.slice(0, HTML_FINDING_CAP);
  const pageFindings = listed.map((f) => {
    const asset = dataset.findingAsset(f);
    const { id, title, severity, source_tool, description, evidence, remediation } = f;
    return {
      id,
      title,
      severity,
      risk_score: riskScore(f),
      resource: f.resource_arn ?? f.resource_id,
      asset_id: asset?.id ?? null,
      asset_name: asset ? `${asset.name} (${displayId(asset)})` : null,
      source_tool,
      frameworks: f.compliance_frameworks,
      suppressed: f.is_suppressed,
      description,
      evidence,
      remediation,
    };
  });
  const graph = graphData(dataset, options.graphNodeCap ?? HTML_GRAPH_NODE_CAP);
  const risks = topRisks(dataset, { top: 10 });
  const maxSeverity = Math.max(1, ...Object.values(summary.severity_breakdown));

  const figures = HTML_SUMMARY_FIGURES.map(([key, label]) =>
    figureHtml(key, label, (summary as unknown as Record<string, number>)[key] ?? 0)
  ).join("");
  const bars = SEVERITIES.map((level) => {
    const count = summary.severity_breakdown[level] ?? 0;
    const width = Math.round((count / maxSeverity) * 100);
    return `<button class="sev sev-filter" data-severity="${level}" style="background:${
      SEVERITY_COLOURS[level]
    }">${level}</button><div class="bar" style="width:${width}%;background:${
      SEVERITY_COLOURS[level]
    }"></div><span class="count" data-severity-count="${level}">${count}</span>`;
  }).join("");
  const riskRows = risks.items.map((row, i) =>
    `<tr class="risk" data-asset-id="${escapeHtml(row.asset.id)}"><td>${i + 1}</td><td>${
      escapeHtml(row.asset.name)
    }</td><td>${
      escapeHtml(row.asset.type)
    }</td><td>${row.score}</td><td>${row.components.open_findings}</td><td>${
      row.components.internet_reachable ? "yes" : "no"
    }</td><td>${row.components.transitive_dependents}</td></tr>`
  ).join("");
  const findingRows = pageFindings.map((f) =>
    `<tr class="finding" data-finding-id="${escapeHtml(f.id)}" data-severity="${f.severity}">` +
    `<td><span class="sev" style="background:${
      SEVERITY_COLOURS[f.severity]
    }">${f.severity}</span></td>` +
    `<td>${f.risk_score}</td><td>${escapeHtml(f.title)}</td><td>${
      escapeHtml(f.asset_name ?? f.resource)
    }</td><td>${f.suppressed ? "suppressed" : "open"}</td></tr>`
  ).join("");
  const data = {
    dataset: dataset.name,
    generated_at: generatedAt,
    colours: SEVERITY_COLOURS,
    findings: pageFindings,
    graph,
  };
  const graphNote = graph.nodes.length < graph.total_nodes
    ? `Showing the ${graph.nodes.length} riskiest of ${graph.total_nodes} nodes.`
    : `${graph.total_nodes} nodes, ${graph.links.length} links.`;
  const findingNote = listed.length < findings.length
    ? `Listing the ${listed.length} highest-risk of ${findings.length} findings.`
    : `${findings.length} findings, highest risk first. Click one for its detail.`;

  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>Cloud security report: ${escapeHtml(dataset.name)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>Cloud security report: ${escapeHtml(dataset.name)}</h1>
<p>Dataset version ${dataset.version} (${escapeHtml(dataset.kind)}), generated ${
    escapeHtml(generatedAt)
  }. Providers: ${escapeHtml(summary.providers.join(", ") || "none")}.</p></header>
<main>
<section id="summary"><h2>Summary</h2><div class="figures">${figures}</div></section>
<div class="layout">
<section id="severity"><h2>Open findings by severity</h2><div class="bars">${bars}</div>
<p class="muted">Click a severity to filter the findings table.</p></section>
<section id="top-risks"><h2>Top risks</h2>
<table><thead><tr><th>#</th><th>Asset</th><th>Type</th><th>Score</th><th>Open findings</th><th>Internet-reachable</th><th>Dependents</th></tr></thead>
<tbody>${riskRows || '<tr><td colspan="7">No asset has open findings.</td></tr>'}</tbody></table>
<p class="muted">${escapeHtml(risks.formula)}</p></section>
</div>
<section id="graph-section"><h2>Asset graph</h2><p class="muted">${
    escapeHtml(graphNote)
  } Scroll to zoom, drag to pan, click a node for its detail. Colour: worst open finding severity.</p>
<div class="layout"><div id="graph-wrap"><svg id="graph" role="img" aria-label="Asset relationship graph"></svg></div>
<aside id="node-detail" class="detail" hidden></aside></div></section>
<section id="findings"><h2>Findings</h2><p class="muted">${escapeHtml(findingNote)}</p>
<p id="filter-note" class="muted"></p>
<div class="layout"><table><thead><tr><th>Severity</th><th>Risk</th><th>Title</th><th>Resource</th><th>Status</th></tr></thead>
<tbody>${findingRows}</tbody></table>
<aside id="finding-detail" class="detail" hidden></aside></div></section>
</main>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
