// SPDX-License-Identifier: GPL-2.0-or-later
// node validate.mjs [--self-test] MANIFEST.yaml
//
// Every document of the manifest against the Kubernetes API's OpenAPI
// schemas (the kubernetes-models package: its validate() is the schema of
// the kind's apiVersion), then what the kernel guard needs of the
// DaemonSet: the host mounts, the readiness probe on `enforce ready`, the
// capabilities (and no privileged), a rollout of one node at a time, and
// a node affinity.  --self-test also removes each required part in turn
// and fails unless the check then fails.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { Namespace } from "kubernetes-models/v1";
import { DaemonSet } from "kubernetes-models/apps/v1";

const kinds = { "v1/Namespace": Namespace, "apps/v1/DaemonSet": DaemonSet };

const HOST_MOUNTS = {
  "/sys/fs/bpf": false, // false: read-write (the pin)
  "/sys/kernel/btf": true,
  "/sys/kernel/security": true,
  "/sys/bus/event_source": true,
};
const CAPS = new Set(["BPF", "PERFMON", "SYS_ADMIN", "SYSLOG"]);

function check(docs) {
  const errors = [];
  for (const d of docs) {
    const cls = kinds[`${d.apiVersion}/${d.kind}`];
    if (!cls) {
      errors.push(`${d.kind}: no schema known for ${d.apiVersion}`);
      continue;
    }
    try {
      new cls(d).validate();
    } catch (e) {
      errors.push(`${d.kind} ${d.metadata?.name}: ${e.message}`);
    }
  }
  const ds = docs.find((d) => d.kind === "DaemonSet");
  if (!ds) return [...errors, "no DaemonSet"];
  const spec = ds.spec?.template?.spec ?? {};
  const c = (spec.containers ?? []).find((x) => x.name === "agent");
  if (!c) return [...errors, "no container named agent"];
  const vols = Object.fromEntries((spec.volumes ?? []).map((v) => [v.name, v]));
  for (const [path, ro] of Object.entries(HOST_MOUNTS)) {
    const m = (c.volumeMounts ?? []).find((x) => x.mountPath === path);
    const v = m && vols[m.name];
    if (!m || !v || v.hostPath?.path !== path)
      errors.push(`the host's ${path} is not mounted at ${path}`);
    else if (!!m.readOnly !== ro)
      errors.push(`${path} must be mounted ${ro ? "read-only" : "read-write"}`);
  }
  const cmd = c.readinessProbe?.exec?.command ?? [];
  if (cmd.join(" ") !== "/usr/bin/pmuguard enforce ready")
    errors.push("no readiness probe on `pmuguard enforce ready` (verified)");
  const sc = c.securityContext ?? {};
  if (sc.privileged) errors.push("privileged: the capabilities below are enough");
  const add = sc.capabilities?.add ?? [];
  for (const cap of add) if (!CAPS.has(cap)) errors.push(`capability ${cap} is more than the guard needs`);
  for (const cap of CAPS) if (!add.includes(cap)) errors.push(`capability ${cap} is missing`);
  if (!(sc.capabilities?.drop ?? []).includes("ALL")) errors.push("capabilities: drop ALL first");
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  if (ds.spec?.updateStrategy?.type !== "RollingUpdate" || ru?.maxUnavailable === undefined)
    errors.push("no RollingUpdate with maxUnavailable");
  if (!spec.affinity?.nodeAffinity && !spec.nodeSelector) errors.push("no node affinity or selector");
  return errors;
}

const args = process.argv.slice(2);
const selfTest = args[0] === "--self-test";
const file = selfTest ? args[1] : args[0];
const load = () => parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS()).filter(Boolean);

const errors = check(load());
if (errors.length) {
  for (const e of errors) console.log(`FAIL: ${e}`);
  process.exit(1);
}
console.log(`ok: ${file}: every document valid against the API schemas (kubernetes-models), and the guard's needs met`);
if (selfTest) {
  const agent = (docs) => docs.find((d) => d.kind === "DaemonSet").spec.template.spec.containers[0];
  const mutations = {
    ...Object.fromEntries(
      Object.keys(HOST_MOUNTS).map((p) => [`without the ${p} mount`, (docs) => {
        const c = agent(docs);
        c.volumeMounts = c.volumeMounts.filter((m) => m.mountPath !== p);
      }]),
    ),
    "without the readiness probe": (docs) => { delete agent(docs).readinessProbe; },
    "with a misspelt field type (schema)": (docs) => { agent(docs).readinessProbe.periodSeconds = "often"; },
    "privileged": (docs) => { agent(docs).securityContext.privileged = true; },
  };
  let bad = 0;
  for (const [name, mutate] of Object.entries(mutations)) {
    const docs = load();
    mutate(docs);
    const e = check(docs);
    if (e.length) console.log(`ok: ${name}: refused (${e[0]})`);
    else { console.log(`FAIL: ${name}: still accepted`); bad++; }
  }
  process.exit(bad ? 1 : 0);
}
