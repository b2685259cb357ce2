import { OPENAPI_DOCUMENT } from "./openapi.js";

const escapeScript = (json: string) => json.replace(/</g, "\\u003c");

/**
 * The `/docs` page: the OpenAPI document rendered by an inline script, with a "try it" button per
 * route. Self-contained: no external scripts, styles or fonts.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Strata REST API</title>
<style>
  body { font: 15px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
  header { background: #1d2330; color: #fff; padding: 20px 24px; }
  header h1 { margin: 0 0 6px; font-size: 22px; }
  header p { margin: 0; max-width: 900px; color: #cfd5e0; }
  main { max-width: 980px; margin: 0 auto; padding: 16px; }
  section { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; margin: 12px 0; }
  summary { cursor: pointer; padding: 12px 16px; display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
  .verb { font: 600 12px monospace; background: #2f6fed; color: #fff; border-radius: 4px; padding: 2px 8px; }
  .path { font: 600 14px monospace; }
  .sum { color: #5b6475; }
  .body { padding: 0 16px 16px; }
  table { border-collapse: collapse; width: 100%; font-size: 14px; }
  td, th { text-align: left; border-bottom: 1px solid #eef0f4; padding: 4px 6px; vertical-align: top; }
  pre { background: #f1f3f7; padding: 10px; border-radius: 6px; overflow: auto; font-size: 12.5px; }
  input { font: 13px monospace; padding: 4px 6px; width: 100%; box-sizing: border-box; }
  button { font: inherit; padding: 4px 12px; margin-top: 8px; cursor: pointer; }
</style>
</head>
<body>
<header><h1>Strata REST API</h1><p id="desc"></p><p><a style="color:#9cc2ff" href="/v1/openapi.json">/v1/openapi.json</a></p></header>
<main id="paths"></main>
<script type="application/json" id="spec">${escapeScript(JSON.stringify(OPENAPI_DOCUMENT))}</script>
<script>
(function () {
  var spec = JSON.parse(document.getElementById("spec").textContent);
  document.getElementById("desc").textContent = spec.info.description;
  var root = document.getElementById("paths");
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function resolve(schema, depth) {
    if (!schema || depth > 4) return schema;
    if (schema.$ref) return resolve(spec.components.schemas[schema.$ref.split("/").pop()], depth + 1);
    var out = Array.isArray(schema) ? [] : {};
    for (var k in schema) out[k] = typeof schema[k] === "object" ? resolve(schema[k], depth + 1) : schema[k];
    return out;
  }
  Object.keys(spec.paths).forEach(function (path) {
    var op = spec.paths[path].get;
    var section = el("section");
    var details = el("details");
    var summary = el("summary");
    summary.appendChild(el("span", { class: "verb" }, "GET"));
    summary.appendChild(el("span", { class: "path" }, path));
    summary.appendChild(el("span", { class: "sum" }, op.summary));
    details.appendChild(summary);
    var body = el("div", { class: "body" });
    var inputs = {};
    var parameters = op.parameters || [];
    if (parameters.length) {
      var table = el("table");
      var head = el("tr");
      ["name", "in", "description", "value"].forEach(function (h) { head.appendChild(el("th", {}, h)); });
      table.appendChild(head);
      parameters.forEach(function (p) {
        var row = el("tr");
        row.appendChild(el("td", {}, p.name + (p.required ? " *" : "")));
        row.appendChild(el("td", {}, p.in));
        row.appendChild(el("td", {}, p.description || ""));
        var cell = el("td");
        var input = el("input", { placeholder: p.schema && p.schema.default !== undefined ? String(p.schema.default) : "" });
        inputs[p.name] = { input: input, where: p.in };
        cell.appendChild(input);
        row.appendChild(cell);
        table.appendChild(row);
      });
      body.appendChild(table);
    }
    body.appendChild(el("p", {}, "Response 200:"));
    body.appendChild(el("pre", {}, JSON.stringify(resolve(op.responses["200"].content["application/json"].schema, 0), null, 2)));
    var button = el("button", {}, "Try it");
    var result = el("pre");
    button.onclick = function () {
      var url = path, query = [];
      Object.keys(inputs).forEach(function (name) {
        var v = inputs[name].input.value.trim();
        if (inputs[name].where === "path") url = url.replace("{" + name + "}", encodeURIComponent(v));
        else if (v) query.push(encodeURIComponent(name) + "=" + encodeURIComponent(v));
      });
      if (query.length) url += "?" + query.join("&");
      result.textContent = "GET " + url + " ...";
      fetch(url).then(function (r) { return r.text().then(function (t) {
        try { t = JSON.stringify(JSON.parse(t), null, 2); } catch (e) {}
        result.textContent = r.status + "\\n" + t;
      }); }, function (e) { result.textContent = String(e); });
    };
    body.appendChild(button);
    body.appendChild(result);
    details.appendChild(body);
    section.appendChild(details);
    root.appendChild(section);
  });
})();
</script>
</body>
</html>
`;
