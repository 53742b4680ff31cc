// SPDX-License-Identifier: GPL-2.0-or-later
// node validate.mjs [--self-test] MANIFEST.yaml
//
// Every document of the manifest as `kubectl apply --validate=strict`
// and the API server would take it:
//   - the Kubernetes API's OpenAPI schema of its kind and apiVersion (the
//     kubernetes-models package's compiled validators);
//   - no unknown field: the compiled schemas do not forbid extra
//     properties, so each object is read through a proxy that records the
//     fields the schema asked for, and every other field is an error (an
//     object the schema walks key by key, labels say, is a map and takes
//     any key); duplicate keys in the YAML are errors too;
//   - the rules the API server's validation adds where the schema says
//     only "int-or-string" or says nothing (pkg/apis/core/validation and
//     pkg/apis/apps/validation, named at each check below).
// Then what the kernel guard needs of the DaemonSet: the host mounts, the
// readiness probe on `enforce ready`, the capabilities (and no
// privileged, no_new_privs), the bpffs mount's propagation, a rollout of
// one node at a time, and a node affinity on the canary's label alone;
// and of its metrics: --textfile a .prom file in a writable hostPath
// directory, the only writable mount besides the bpffs, on a read-only
// root.
// --self-test also breaks each of those in turn, misspells fields, and
// fails unless the check then fails.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";
import { validate as validateNamespace } from "kubernetes-models/_schemas/IoK8sApiCoreV1Namespace";
import { validate as validateDaemonSet } from "kubernetes-models/_schemas/IoK8sApiAppsV1DaemonSet";

const kinds = { "v1/Namespace": validateNamespace, "apps/v1/DaemonSet": validateDaemonSet };

const HOST_MOUNTS = {
  "/sys/fs/bpf": false, // false: read-write (the pin)
  "/sys/kernel/btf": true,
  "/sys/kernel/security": true,
  "/sys/bus/event_source": true,
};
const CAPS = new Set(["BPF", "PERFMON", "SYS_ADMIN", "SYSLOG"]);

// The value seen through a proxy that records, per object, which fields
// the validator read, and whether it listed the keys (a map).
function tracked(value, path, seen) {
  if (value === null || typeof value !== "object") return value;
  const rec = { value, path, read: new Set(), map: false };
  seen.push(rec);
  const kids = new Map();
  const child = (k) => (Array.isArray(value) ? `${path}[${k}]` : path ? `${path}.${k}` : k);
  return new Proxy(value, {
    get(t, k, r) {
      const v = Reflect.get(t, k, r);
      if (typeof k !== "string") return v;
      rec.read.add(k);
      if (v === null || typeof v !== "object") return v;
      if (!kids.has(k)) kids.set(k, tracked(v, child(k), seen));
      return kids.get(k);
    },
    has(t, k) {
      if (typeof k === "string") rec.read.add(k);
      return Reflect.has(t, k);
    },
    ownKeys(t) {
      rec.map = true;
      return Reflect.ownKeys(t);
    },
  });
}

function schemaErrors(d, validate) {
  const seen = [];
  const errors = [];
  if (!validate(tracked(d, "", seen)))
    for (const e of validate.errors ?? [])
      errors.push(`${e.instancePath || "/"}: ${e.keyword} ${JSON.stringify(e.params)}${e.message ? ` (${e.message})` : ""}`);
  for (const r of seen) {
    if (Array.isArray(r.value) || r.map) continue;
    for (const k of Object.keys(r.value))
      if (!r.read.has(k)) errors.push(`unknown field "${r.path ? `${r.path}.` : ""}${k}"`);
  }
  return errors;
}

// pkg/apis/core/validation ValidatePositiveIntOrPercent and
// IsNotMoreThan100Percent: an int-or-string that counts pods is an int
// >= 0 or a percentage "N%" (no other string parses).
function intOrPercent(v, where) {
  if (v === undefined) return [];
  if (Number.isInteger(v)) return v < 0 ? [`${where}: must be greater than or equal to 0`] : [];
  if (typeof v === "string" && /^[0-9]+%$/.test(v))
    return parseInt(v, 10) > 100 ? [`${where}: must not be greater than 100%`] : [];
  return [`${where}: ${JSON.stringify(v)}: must be an integer or a percentage ("10%")`];
}

// A probe's port (an int-or-string): 1-65535 or a named port
// (validation.IsValidPortName: IANA_SVC_NAME, 1-15 characters, a letter).
function portNumOrName(v, where) {
  if (v === undefined) return [];
  if (Number.isInteger(v)) return v >= 1 && v <= 65535 ? [] : [`${where}: must be between 1 and 65535`];
  if (typeof v === "string" && v.length <= 15 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(v) && /[a-z]/.test(v) && !v.includes("--"))
    return [];
  return [`${where}: ${JSON.stringify(v)}: must be a port number or an IANA_SVC_NAME`];
}

function apiRules(ds) {
  const errors = [];
  const s = ds.spec ?? {};
  const ru = s.updateStrategy?.rollingUpdate ?? {};
  const at = "spec.updateStrategy.rollingUpdate";
  errors.push(...intOrPercent(ru.maxUnavailable, `${at}.maxUnavailable`), ...intOrPercent(ru.maxSurge, `${at}.maxSurge`));
  // apps/validation ValidateRollingUpdateDaemonSet: one of the two must
  // let the rollout move.
  const zero = (v) => v === undefined || v === 0 || v === "0%";
  if (s.updateStrategy?.type === "RollingUpdate" && zero(ru.maxUnavailable) && zero(ru.maxSurge))
    errors.push(`${at}.maxUnavailable: may not be 0 when maxSurge is 0`);
  (s.template?.spec?.containers ?? []).forEach((c, i) => {
    const cat = `spec.template.spec.containers[${i}]`;
    for (const p of ["livenessProbe", "readinessProbe", "startupProbe"]) {
      errors.push(...portNumOrName(c[p]?.httpGet?.port, `${cat}.${p}.httpGet.port`));
      errors.push(...portNumOrName(c[p]?.tcpSocket?.port, `${cat}.${p}.tcpSocket.port`));
    }
    const sc = c.securityContext ?? {};
    // core/validation ValidateSecurityContext: no_new_privs cannot go with
    // privileged, nor with the literal "CAP_SYS_ADMIN" in add (the check
    // compares that string; "SYS_ADMIN", the form runtimes take, passes).
    if (sc.allowPrivilegeEscalation === false) {
      if (sc.privileged) errors.push(`${cat}.securityContext: cannot set allowPrivilegeEscalation to false and privileged to true`);
      if ((sc.capabilities?.add ?? []).includes("CAP_SYS_ADMIN"))
        errors.push(`${cat}.securityContext: cannot set allowPrivilegeEscalation to false and capabilities.add CAP_SYS_ADMIN`);
    }
    // core/validation validateMountPropagation: Bidirectional only in a
    // privileged container.
    (c.volumeMounts ?? []).forEach((m, j) => {
      if (m.mountPropagation === "Bidirectional" && !sc.privileged)
        errors.push(`${cat}.volumeMounts[${j}].mountPropagation: Bidirectional mount propagation is available only to privileged containers`);
    });
  });
  return errors;
}

const sc0 = (c) => c.securityContext ?? {};

function check(docs) {
  const errors = [];
  for (const d of docs) {
    const validate = kinds[`${d.apiVersion}/${d.kind}`];
    if (!validate) {
      errors.push(`${d.kind}: no schema known for ${d.apiVersion}`);
      continue;
    }
    for (const e of schemaErrors(d, validate)) errors.push(`${d.kind} ${d.metadata?.name}: ${e}`);
  }
  const ds = docs.find((d) => d.kind === "DaemonSet");
  if (!ds) return [...errors, "no DaemonSet"];
  for (const e of apiRules(ds)) errors.push(`DaemonSet ${ds.metadata?.name}: ${e}`);
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
  // The pin must land in the host's bpffs, and a bpffs the host mounts
  // after the pod started must reach the pod: HostToContainer (the pod is
  // not privileged, so Bidirectional is not open to it).
  const bpf = (c.volumeMounts ?? []).find((x) => x.mountPath === "/sys/fs/bpf");
  if (bpf && bpf.mountPropagation !== "HostToContainer")
    errors.push("/sys/fs/bpf must be mounted with mountPropagation: HostToContainer");
  // The node's metrics: --textfile names a .prom file (node_exporter's
  // textfile collector reads no other) in a directory that is a writable
  // hostPath mount, DirectoryOrCreate or Directory; and the root is
  // read-only, so the writable places are the pin's bpffs and that one
  // directory, nothing else.
  if (sc0(c).readOnlyRootFilesystem !== true) errors.push("readOnlyRootFilesystem: true is missing");
  const a = c.args ?? [];
  const at = a.indexOf("--textfile");
  const textfile = at >= 0 ? a[at + 1] ?? "" : "";
  const dir = textfile.slice(0, textfile.lastIndexOf("/"));
  const tm = (c.volumeMounts ?? []).find((x) => x.mountPath === dir);
  const tv = tm && vols[tm.name];
  if (!textfile) errors.push("no --textfile: the node's pmuguard_* series reach no node_exporter");
  else if (!/^\/.+\/[^/]+\.prom$/.test(textfile))
    errors.push(`--textfile ${textfile}: an absolute name ending in .prom (the textfile collector reads *.prom only)`);
  else if (!tm || !tv?.hostPath) errors.push(`--textfile ${textfile}: its directory ${dir} is not a host mount`);
  else if (tm.readOnly) errors.push(`--textfile ${textfile}: its directory ${dir} is mounted read-only`);
  else if (!["DirectoryOrCreate", "Directory"].includes(tv.hostPath.type))
    errors.push(`the textfile volume's hostPath type must be DirectoryOrCreate or Directory, not ${tv.hostPath.type ?? "unset"}`);
  for (const m of c.volumeMounts ?? [])
    if (!m.readOnly && m.mountPath !== "/sys/fs/bpf" && m.mountPath !== dir)
      errors.push(`${m.mountPath} is mounted read-write: only the bpffs and the textfile's directory need to be`);
  const cmd = c.readinessProbe?.exec?.command ?? [];
  if (cmd.join(" ") !== "/usr/bin/pmuguard enforce ready")
    errors.push("no readiness probe on `pmuguard enforce ready` (verified)");
  const sc = c.securityContext ?? {};
  if (sc.privileged) errors.push("privileged: the capabilities below are enough");
  if (sc.allowPrivilegeEscalation !== false) errors.push("allowPrivilegeEscalation: false (no_new_privs) is missing");
  const add = sc.capabilities?.add ?? [];
  for (const cap of add) if (!CAPS.has(cap)) errors.push(`capability ${cap} is more than the guard needs`);
  for (const cap of CAPS) if (!add.includes(cap)) errors.push(`capability ${cap} is missing`);
  if (!(sc.capabilities?.drop ?? []).includes("ALL")) errors.push("capabilities: drop ALL first");
  const ru = ds.spec?.updateStrategy?.rollingUpdate;
  if (ds.spec?.updateStrategy?.type !== "RollingUpdate" || ru?.maxUnavailable === undefined)
    errors.push("no RollingUpdate with maxUnavailable");
  // A first apply schedules every matching node at once (maxUnavailable
  // paces updates only): the install is a canary only where the pods go
  // to labelled nodes alone, each term asking for the label.
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  const labelled = (t) => (t.matchExpressions ?? []).some((e) => e.key === "pmuguard.io/guard" && e.operator === "In" &&
    JSON.stringify(e.values) === '["true"]');
  if (!terms.length || !terms.every(labelled))
    errors.push("the node affinity must select only nodes labelled pmuguard.io/guard=true (a first apply reaches every node it selects at once)");
  return errors;
}

const args = process.argv.slice(2);
const selfTest = args[0] === "--self-test";
const file = selfTest ? args[1] : args[0];
// Duplicate keys and YAML errors are refused, as kubectl's strict mode
// refuses them; the yaml package reports them on each document.
function load() {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  const bad = docs.flatMap((d) => d.errors.map((e) => `${file}: ${e.message.split("\n")[0]}`));
  if (bad.length) {
    for (const e of bad) console.log(`FAIL: ${e}`);
    process.exit(1);
  }
  return docs.map((d) => d.toJS()).filter(Boolean);
}

const errors = check(load());
if (errors.length) {
  for (const e of errors) console.log(`FAIL: ${e}`);
  process.exit(1);
}
console.log(`ok: ${file}: every document valid against the API schemas (kubernetes-models), strictly (no unknown field), and the guard's needs met`);
if (selfTest) {
  const agent = (docs) => docs.find((d) => d.kind === "DaemonSet").spec.template.spec.containers[0];
  const ds = (docs) => docs.find((d) => d.kind === "DaemonSet");
  const bpffs = (docs) => agent(docs).volumeMounts.find((m) => m.mountPath === "/sys/fs/bpf");
  const rename = (o, from, to) => { o[to] = o[from]; delete o[from]; };
  const textfileMount = (docs) => agent(docs).volumeMounts.find((m) => m.mountPath === "/var/lib/prometheus/node-exporter");
  const mutations = {
    ...Object.fromEntries(
      Object.keys(HOST_MOUNTS).map((p) => [`without the ${p} mount`, (docs) => {
        const c = agent(docs);
        c.volumeMounts = c.volumeMounts.filter((m) => m.mountPath !== p);
      }]),
    ),
    "without the readiness probe": (docs) => { delete agent(docs).readinessProbe; },
    "with a field of the wrong type (schema)": (docs) => { agent(docs).readinessProbe.periodSeconds = "often"; },
    "with readOnlyRootFilesytem (unknown field)": (docs) => rename(agent(docs).securityContext, "readOnlyRootFilesystem", "readOnlyRootFilesytem"),
    "with initialDelaySecond (unknown field)": (docs) => rename(agent(docs).readinessProbe, "initialDelaySeconds", "initialDelaySecond"),
    "with an unknown field at the top of the pod spec": (docs) => { ds(docs).spec.template.spec.tolerate = []; },
    "with an unknown field in the Namespace": (docs) => { docs.find((d) => d.kind === "Namespace").metadata.label = {}; },
    'with maxUnavailable: "one"': (docs) => { ds(docs).spec.updateStrategy.rollingUpdate.maxUnavailable = "one"; },
    "with maxUnavailable: 0 and no maxSurge": (docs) => { ds(docs).spec.updateStrategy.rollingUpdate.maxUnavailable = 0; },
    "privileged": (docs) => { agent(docs).securityContext.privileged = true; },
    "without allowPrivilegeEscalation: false": (docs) => { delete agent(docs).securityContext.allowPrivilegeEscalation; },
    'with the literal "CAP_SYS_ADMIN" beside allowPrivilegeEscalation: false (the API refuses it)': (docs) => {
      const caps = agent(docs).securityContext.capabilities;
      caps.add = caps.add.map((c) => (c === "SYS_ADMIN" ? "CAP_SYS_ADMIN" : c));
    },
    "with the bpffs mount's propagation left out": (docs) => { delete bpffs(docs).mountPropagation; },
    "with a node affinity term by instance type (a first apply reaches every m6i at once)": (docs) => {
      ds(docs).spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms.push(
        { matchExpressions: [{ key: "node.kubernetes.io/instance-type", operator: "In", values: ["m6i.large"] }] });
    },
    "with Bidirectional in an unprivileged container (the API refuses it)": (docs) => { bpffs(docs).mountPropagation = "Bidirectional"; },
    "without readOnlyRootFilesystem": (docs) => { delete agent(docs).securityContext.readOnlyRootFilesystem; },
    "without --textfile": (docs) => { agent(docs).args = []; },
    "with a textfile the collector skips (pmuguard.txt)": (docs) => {
      agent(docs).args = ["--textfile", "/var/lib/prometheus/node-exporter/pmuguard.txt"];
    },
    "with the textfile's directory mounted read-only": (docs) => { textfileMount(docs).readOnly = true; },
    "with the textfile's directory not mounted": (docs) => {
      agent(docs).volumeMounts = agent(docs).volumeMounts.filter((m) => m !== textfileMount(docs));
    },
    "with the textfile's hostPath type unset (anything goes, a file too)": (docs) => {
      delete ds(docs).spec.template.spec.volumes.find((v) => v.name === textfileMount(docs).name).hostPath.type;
    },
    "with a wider writable host mount (/var/lib)": (docs) => {
      ds(docs).spec.template.spec.volumes.push({ name: "varlib", hostPath: { path: "/var/lib", type: "Directory" } });
      agent(docs).volumeMounts.push({ name: "varlib", mountPath: "/var/lib" });
    },
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
