// SPDX-License-Identifier: MIT
// tests/k8s_validate.js FILE...: every document of each multi-document YAML FILE is
// validated against the Kubernetes API schemas of the npm package kubernetes-models
// (types, required fields, enums, formats, quantities). NODE_PATH must reach
// kubernetes-models and js-yaml. Prints "ok KIND NAMESPACE/NAME" or "invalid ...: why"
// per document; exit 1 if any is invalid or of an unknown apiVersion/kind.
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");
let bad = 0;
for (const file of process.argv.slice(2)) {
  let docs;
  try {
    docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d !== null);
  } catch (e) {
    console.log(`invalid ${file}: YAML: ${e.message.split("\n")[0]}`);
    bad++;
    continue;
  }
  for (const doc of docs) {
    const id = `${doc.kind} ${(doc.metadata || {}).namespace || "-"}/${(doc.metadata || {}).name}`;
    const [group, version] = String(doc.apiVersion).includes("/")
      ? String(doc.apiVersion).split("/") : ["", String(doc.apiVersion)];
    let Kind;
    try {
      Kind = require(`kubernetes-models/${group ? group + "/" : ""}${version}`)[doc.kind];
    } catch (e) {
      Kind = undefined;
    }
    if (typeof Kind !== "function") {
      console.log(`invalid ${file}: ${id}: unknown apiVersion/kind ${doc.apiVersion} ${doc.kind}`);
      bad++;
      continue;
    }
    try {
      new Kind(doc).validate();
      console.log(`ok ${id}`);
    } catch (e) {
      console.log(`invalid ${file}: ${id}: ${e.message.replace(/\s+/g, " ").slice(0, 400)}`);
      bad++;
    }
  }
}
process.exit(bad ? 1 : 0);
