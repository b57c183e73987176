// docker/k8s-validate/validate.mjs -- offline validation of the Kubernetes manifests in docker/k8s/.
//
//   cd docker/k8s-validate && npm ci --ignore-scripts && node validate.mjs [FILE.yaml ...]
//
// No cluster is needed. Three layers of checks:
//  1. schema: every document is validated with kubernetes-models 5.1.0 (the Kubernetes OpenAPI
//     schemas compiled to JavaScript): types, required fields, enums.
//  2. unknown fields: the schemas accept unknown keys (a typo such as `readinesProbe` would pass and
//     be dropped by the API server), so the schema validator is run on a Proxy that records which
//     keys it reads; a key it never reads is not in the schema and is reported.
//  3. policy: what issue 6 asks of the manifests and how they fit together (selectors match the pod
//     labels, probes on /readyz and /healthz, non-root, read-only root filesystem, preStop + drain
//     shorter than the grace period, HPA target exists and has CPU requests, PDB < replicas, the
//     data dir on one ReadWriteMany claim, Prometheus scrape annotations, the write key from a
//     Secret, Ingress body limits equal to posencd's limits, ...).
// Before the real files, a self-test checks that each layer rejects a broken manifest.
// Prints one line per object and ends with "k8s-validate: N passed, M failed"; exit 1 on a failure.
// Runs on Node 18, 20 and 22 (kubernetes-models declares node >= 22, but only its engines field does).
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Module of the model class and of the compiled schema for apiVersion + kind. */
function modulesFor(apiVersion, kind) {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
    const groupName = group.split(".")[0];
    const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
    const modelPath = group === "core" ? `v1/${kind}` : `${group}/${version}/${kind}`;
    return {
        model: `kubernetes-models/${modelPath}`,
        schema: `kubernetes-models/_schemas/IoK8sApi${cap(groupName)}${cap(version)}${kind}`,
    };
}

/** Deep copy of value wrapped in Proxies that mark each own key read in `seen` (path -> bool). */
function track(value, p, seen) {
    if (value === null || typeof value !== "object")
        return value;
    let node;
    if (Array.isArray(value)) {
        node = value.map((v, i) => track(v, `${p}/${i}`, seen));
    } else {
        node = {};
        for (const [k, v] of Object.entries(value)) {
            node[k] = track(v, `${p}/${k}`, seen);
            seen.set(`${p}/${k}`, false);
        }
    }
    return new Proxy(node, {
        get(t, key, r) {
            if (typeof key === "string" && Object.prototype.hasOwnProperty.call(t, key))
                seen.set(`${p}/${key}`, true);
            return Reflect.get(t, key, r);
        },
    });
}

/** Schema and unknown-field errors of one object (list of strings). */
async function schemaErrors(obj) {
    if (!obj || typeof obj.apiVersion !== "string" || typeof obj.kind !== "string")
        return ["document has no apiVersion/kind"];
    const m = modulesFor(obj.apiVersion, obj.kind);
    let Model, validate;
    try {
        Model = (await import(m.model))[obj.kind];
        validate = (await import(m.schema)).validate;
    } catch (e) {
        return [`no kubernetes-models schema for ${obj.apiVersion} ${obj.kind} (${e.code || e.message})`];
    }
    const errs = [];
    try {
        new Model(structuredClone(obj)).validate();
    } catch (e) {
        errs.push(`schema: ${e.message}`);
    }
    const seen = new Map();
    validate(track(obj, "", seen));
    for (const [k, read] of seen)
        if (!read)
            errs.push(`unknown field ${k}`);
    return errs;
}

const labelsMatch = (selector, labels) =>
    !!selector && Object.keys(selector).length > 0 &&
    Object.entries(selector).every(([k, v]) => labels && labels[k] === v);

function drainSeconds(c) {
    const args = c.args || [];
    const i = args.indexOf("--drain-seconds");
    if (i >= 0)
        return Number(args[i + 1]);
    const eq = args.find((a) => a.startsWith("--drain-seconds="));
    if (eq)
        return Number(eq.split("=")[1]);
    const env = (c.env || []).find((e) => e.name === "POSENC_DRAIN_SECONDS");
    return env ? Number(env.value) : 10;
}

function preStopSeconds(c) {
    const ps = c.lifecycle && c.lifecycle.preStop;
    if (!ps)
        return null;
    if (ps.sleep)
        return Number(ps.sleep.seconds);
    const cmd = ps.exec && ps.exec.command;
    if (cmd && /(^|\/)sleep$/.test(cmd[0]))
        return Number(cmd[1]);
    return null;
}

// posencd's defaults (server/config.c; GET /limits) unless the Deployment sets POSENC_MAX_*.
const DEFAULT_LIMITS = { POSENC_MAX_BODY_BYTES: 16777216, POSENC_MAX_TABLE_BYTES: 268435456 };

/** A limit of the Deployment's first container: its env value or posencd's default. */
function limitOf(d, name) {
    const c = ((d.spec.template || {}).spec || {}).containers[0] || {};
    const e = (c.env || []).find((x) => x.name === name);
    return e && e.value !== undefined ? Number(e.value) : DEFAULT_LIMITS[name];
}

/** nginx size ("16m", "256m", "1g", bytes) in bytes; NaN when it is none of those. */
function nginxSize(s) {
    const m = /^(\d+)([kmg]?)$/i.exec(String(s ?? ""));
    return m ? Number(m[1]) * { "": 1, k: 1024, m: 1 << 20, g: 1 << 30 }[m[2].toLowerCase()] : NaN;
}

/** Kubernetes quantity ("5Gi", "512Mi", "4G", bytes) in bytes; NaN when it is none of those. */
function quantityBytes(s) {
    const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(String(s ?? ""));
    const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
    return m ? Number(m[1]) * (m[2] ? unit[m[2]] : 1) : NaN;
}

/** Policy errors of the whole set of objects: map "Kind/name" -> list of strings. */
function policyErrors(objs) {
    const out = new Map();
    const err = (o, msg) => {
        const key = `${o.kind}/${o.metadata && o.metadata.name}`;
        if (!out.has(key))
            out.set(key, []);
        out.get(key).push(msg);
    };
    const deps = objs.filter((o) => o.kind === "Deployment");
    const rwx = (name) => objs.some((o) => o.kind === "PersistentVolumeClaim" && o.metadata.name === name &&
        ((o.spec || {}).accessModes || []).includes("ReadWriteMany"));
    for (const d of deps) {
        const spec = d.spec || {};
        const tpl = (spec.template || {}).metadata || {};
        const pod = (spec.template || {}).spec || {};
        if (!labelsMatch((spec.selector || {}).matchLabels, tpl.labels))
            err(d, "selector.matchLabels do not match the pod template labels");
        if (!(spec.replicas >= 2))
            err(d, `replicas must be >= 2, got ${spec.replicas}`);
        const ru = (spec.strategy || {}).rollingUpdate || {};
        if ((spec.strategy || {}).type !== "RollingUpdate" || ru.maxUnavailable !== 0 || !(ru.maxSurge >= 1))
            err(d, "strategy must be RollingUpdate with maxUnavailable 0 and maxSurge >= 1");
        const psc = pod.securityContext || {};
        const grace = pod.terminationGracePeriodSeconds ?? 30;
        const vols = new Set((pod.volumes || []).map((v) => v.name));
        const ann = tpl.annotations || {};
        const portNumbers = (pod.containers || []).flatMap((c) => (c.ports || []).map((p) => String(p.containerPort)));
        if (ann["prometheus.io/scrape"] !== "true" || ann["prometheus.io/path"] !== "/metrics" ||
            !portNumbers.includes(ann["prometheus.io/port"]))
            err(d, "pod template needs prometheus.io/scrape \"true\", prometheus.io/path /metrics and prometheus.io/port of a container port");
        for (const c of pod.containers || []) {
            const csc = c.securityContext || {};
            const portNames = new Set((c.ports || []).map((p) => p.name).filter(Boolean));
            const portNums = new Set((c.ports || []).map((p) => p.containerPort));
            const probe = (name, want) => {
                const pr = c[name];
                if (!pr || !pr.httpGet)
                    return err(d, `${c.name}: ${name} must be an httpGet probe`);
                if (want && pr.httpGet.path !== want)
                    err(d, `${c.name}: ${name} must GET ${want}, not ${pr.httpGet.path}`);
                const port = pr.httpGet.port;
                if (!(portNames.has(port) || portNums.has(port)))
                    err(d, `${c.name}: ${name} port ${port} is not a declared container port`);
            };
            probe("readinessProbe", "/readyz");
            probe("livenessProbe", "/healthz");
            if (c.startupProbe)
                probe("startupProbe", null);
            const res = c.resources || {};
            for (const kind of ["requests", "limits"])
                for (const r of ["cpu", "memory"])
                    if (!(res[kind] && res[kind][r]))
                        err(d, `${c.name}: resources.${kind}.${r} must be set`);
            if (!(csc.runAsNonRoot ?? psc.runAsNonRoot))
                err(d, `${c.name}: runAsNonRoot must be true`);
            if ((csc.runAsUser ?? psc.runAsUser) !== 10001)
                err(d, `${c.name}: runAsUser must be 10001 (the image's user)`);
            if (csc.readOnlyRootFilesystem !== true)
                err(d, `${c.name}: readOnlyRootFilesystem must be true`);
            if (csc.allowPrivilegeEscalation !== false)
                err(d, `${c.name}: allowPrivilegeEscalation must be false`);
            if (!((csc.capabilities || {}).drop || []).includes("ALL"))
                err(d, `${c.name}: capabilities.drop must include ALL`);
            const mounts = c.volumeMounts || [];
            for (const m of mounts)
                if (!vols.has(m.name))
                    err(d, `${c.name}: volumeMount ${m.name} names no volume`);
            const dataMount = mounts.find((m) => m.mountPath === "/var/lib/posenc");
            if (!dataMount)
                err(d, `${c.name}: the data dir /var/lib/posenc needs a volume (read-only root)`);
            const dataVol = dataMount && (pod.volumes || []).find((v) => v.name === dataMount.name);
            if (dataVol && !(dataVol.persistentVolumeClaim && rwx(dataVol.persistentVolumeClaim.claimName)))
                err(d, `${c.name}: the data dir must be one ReadWriteMany PersistentVolumeClaim of the manifests (per-pod storage splits the tables between replicas)`);
            // the spool (binary q/k): POSENC_SPOOL_DIR, else /tmp; on a volume (read-only root)
            // that holds the quota and the 512 MiB of spare files, not in memory
            const envOf = (n) => ((c.env || []).find((e) => e.name === n) || {}).value;
            const spoolDir = envOf("POSENC_SPOOL_DIR") || "/tmp";
            const quota = Number(envOf("POSENC_SPOOL_QUOTA") || 8589934592);
            const spoolMount = mounts.find((m) => m.mountPath === spoolDir);
            const spoolVol = spoolMount && (pod.volumes || []).find((v) => v.name === spoolMount.name);
            if (!spoolVol)
                err(d, `${c.name}: the spool directory ${spoolDir} needs a volume (read-only root)`);
            else if (spoolVol.emptyDir && spoolVol.emptyDir.medium === "Memory")
                err(d, `${c.name}: the spool directory ${spoolDir} is in memory (emptyDir medium Memory): binary tensors would count against the memory limit; use a disk-backed volume`);
            else if (spoolVol.emptyDir && spoolVol.emptyDir.sizeLimit !== undefined &&
                     !(quantityBytes(spoolVol.emptyDir.sizeLimit) >= quota + 536870912))
                err(d, `${c.name}: the spool volume's sizeLimit ${spoolVol.emptyDir.sizeLimit} is below POSENC_SPOOL_QUOTA (${quota}) + 512 MiB of spare files`);
            const token = (c.env || []).find((e) => e.name === "POSENC_TOKEN");
            if (!token || token.value !== undefined || !(token.valueFrom && token.valueFrom.secretKeyRef))
                err(d, `${c.name}: POSENC_TOKEN (the write key) must come from a Secret (valueFrom.secretKeyRef)`);
            const pre = preStopSeconds(c);
            const drain = drainSeconds(c);
            if (pre === null)
                err(d, `${c.name}: lifecycle.preStop must pause (sleep) before SIGTERM`);
            else if (!(pre + drain < grace))
                err(d, `${c.name}: preStop ${pre} s + drain ${drain} s must be < terminationGracePeriodSeconds ${grace}`);
        }
    }
    const podLabels = (d) => ((d.spec.template || {}).metadata || {}).labels;
    for (const s of objs.filter((o) => o.kind === "Service")) {
        const target = deps.find((d) => labelsMatch((s.spec || {}).selector, podLabels(d)));
        if (!target) {
            err(s, "selector matches no Deployment's pods");
            continue;
        }
        const cports = target.spec.template.spec.containers.flatMap((c) => c.ports || []);
        for (const p of (s.spec || {}).ports || []) {
            const tp = p.targetPort ?? p.port;
            if (!cports.some((cp) => cp.name === tp || cp.containerPort === tp))
                err(s, `targetPort ${tp} is not a container port of Deployment/${target.metadata.name}`);
        }
    }
    for (const h of objs.filter((o) => o.kind === "HorizontalPodAutoscaler")) {
        const spec = h.spec || {};
        const ref = spec.scaleTargetRef || {};
        const target = deps.find((d) => ref.kind === "Deployment" && d.metadata.name === ref.name);
        if (!target)
            err(h, `scaleTargetRef ${ref.kind}/${ref.name} is not in the manifests`);
        if (!(spec.minReplicas >= 2 && spec.maxReplicas >= spec.minReplicas))
            err(h, "minReplicas must be >= 2 and maxReplicas >= minReplicas");
        const cpu = (spec.metrics || []).some((m) => m.type === "Resource" && m.resource && m.resource.name === "cpu");
        if (!cpu)
            err(h, "no cpu Resource metric");
        if (target && cpu && !target.spec.template.spec.containers.every((c) => c.resources && c.resources.requests && c.resources.requests.cpu))
            err(h, "cpu utilisation needs cpu requests on every container");
    }
    for (const ing of objs.filter((o) => o.kind === "Ingress")) {
        const ann = ing.metadata.annotations || {};
        const paths = ((ing.spec || {}).rules || []).flatMap((r) => (r.http || {}).paths || []);
        for (const p of paths) {
            const ref = ((p.backend || {}).service) || {};
            const svc = objs.find((o) => o.kind === "Service" && o.metadata.name === ref.name);
            const ports = svc ? (svc.spec.ports || []) : [];
            if (!ports.some((sp) => sp.name === (ref.port || {}).name || sp.port === (ref.port || {}).number))
                err(ing, `path ${p.path}: backend ${ref.name}:${JSON.stringify(ref.port)} is not a Service port of the manifests`);
        }
        const tables = paths.filter((p) => p.path.startsWith("/tables")).length;
        if (tables && tables !== paths.length)
            err(ing, "table uploads need an Ingress of their own: their body limit differs");
        const name = tables ? "POSENC_MAX_TABLE_BYTES" : "POSENC_MAX_BODY_BYTES";
        const want = deps.length ? limitOf(deps[0], name) : DEFAULT_LIMITS[name];
        const got = ann["nginx.ingress.kubernetes.io/proxy-body-size"];
        if (nginxSize(got) !== want)
            err(ing, `proxy-body-size ${got} must equal posencd's ${name.slice(7).toLowerCase()} (${want} bytes)`);
        if (tables && ann["nginx.ingress.kubernetes.io/proxy-request-buffering"] !== "off")
            err(ing, "table uploads need proxy-request-buffering \"off\" (streamed to the pod, not spooled)");
    }
    for (const p of objs.filter((o) => o.kind === "PodDisruptionBudget")) {
        const spec = p.spec || {};
        const target = deps.find((d) => labelsMatch((spec.selector || {}).matchLabels, podLabels(d)));
        if (!target)
            err(p, "selector matches no Deployment's pods");
        else if (typeof spec.minAvailable === "number" && !(spec.minAvailable < target.spec.replicas))
            err(p, `minAvailable ${spec.minAvailable} must be below the Deployment's replicas (${target.spec.replicas}), or node drains block`);
    }
    return out;
}

/** All errors of a set of objects: map "Kind/name" -> list (empty list = valid). */
async function check(objs) {
    const res = new Map();
    for (const o of objs) {
        const key = `${o && o.kind}/${o && o.metadata && o.metadata.name}`;
        res.set(key, await schemaErrors(o));
    }
    for (const [key, errs] of policyErrors(objs))
        res.set(key, (res.get(key) || []).concat(errs.map((e) => `policy: ${e}`)));
    return res;
}

function loadFile(file) {
    const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"));
    const objs = [];
    for (const doc of docs) {
        if (doc.errors.length)
            throw new Error(`${file}: YAML: ${doc.errors[0].message}`);
        const o = doc.toJS();
        if (o !== null)
            objs.push(o);
    }
    return objs;
}

async function selfTest(objs) {
    const dep = objs.find((o) => o.kind === "Deployment");
    if (!dep)
        return ["self-test: no Deployment to mutate"];
    const cases = [
        ["schema rejects replicas: \"three\"", (d) => { d.spec.replicas = "three"; }, /schema:/],
        ["unknown field readinesProbe is reported", (d) => { d.spec.template.spec.containers[0].readinesProbe = {}; }, /unknown field .*readinesProbe/],
        ["policy rejects readOnlyRootFilesystem false", (d) => { d.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem = false; }, /readOnlyRootFilesystem/],
        ["policy rejects drain longer than the grace period", (d) => { d.spec.template.spec.terminationGracePeriodSeconds = 10; }, /terminationGracePeriodSeconds/],
        ["policy rejects a per-pod emptyDir for the tables", (d) => { d.spec.template.spec.volumes.find((v) => v.name === "data").persistentVolumeClaim = undefined; d.spec.template.spec.volumes.find((v) => v.name === "data").emptyDir = {}; }, /ReadWriteMany/],
        ["policy rejects a missing scrape annotation", (d) => { delete d.spec.template.metadata.annotations["prometheus.io/scrape"]; }, /prometheus/],
        ["policy rejects the spool in memory", (d) => { d.spec.template.spec.containers[0].env = d.spec.template.spec.containers[0].env.filter((e) => e.name !== "POSENC_SPOOL_DIR"); }, /spool directory \/tmp is in memory/],
        ["policy rejects a spool volume smaller than its quota", (d) => { d.spec.template.spec.volumes.find((v) => v.name === "spool").emptyDir.sizeLimit = "1Gi"; }, /sizeLimit/],
        ["policy rejects a literal write key", (d) => { d.spec.template.spec.containers[0].env.find((e) => e.name === "POSENC_TOKEN").value = "x"; }, /Secret/],
        ["policy rejects an Ingress limit that differs from max_body_bytes", (d) => { d.spec.template.spec.containers[0].env.push({ name: "POSENC_MAX_BODY_BYTES", value: "1048576" }); }, /proxy-body-size/],
    ];
    const fails = [];
    for (const [name, mutate, want] of cases) {
        const bad = structuredClone(dep);
        mutate(bad);
        const res = await check(objs.map((o) => (o === dep ? bad : o)));
        const all = [...res.values()].flat();
        if (!all.some((e) => want.test(e)))
            fails.push(`self-test: ${name}: not detected (got: ${all.join("; ") || "no error"})`);
    }
    return fails;
}

async function main() {
    let files = process.argv.slice(2);
    if (files.length === 0) {
        const dir = path.join(here, "..", "k8s");
        files = fs.readdirSync(dir).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => path.join(dir, f));
    }
    let passed = 0, failed = 0;
    const objs = [];
    const origin = new Map();
    for (const f of files) {
        try {
            for (const o of loadFile(f)) {
                objs.push(o);
                origin.set(o, path.basename(f));
            }
        } catch (e) {
            console.log(`FAIL ${e.message}`);
            failed++;
        }
    }
    const st = await selfTest(objs);
    for (const e of st)
        console.log(`FAIL ${e}`);
    if (st.length)
        failed++;
    else {
        console.log("ok   self-test: broken manifests are rejected (schema, unknown field, policy)");
        passed++;
    }
    const res = await check(objs);
    for (const o of objs) {
        const key = `${o && o.kind}/${o && o.metadata && o.metadata.name}`;
        const errs = res.get(key) || [];
        if (errs.length) {
            failed++;
            console.log(`FAIL ${key} (${origin.get(o)})`);
            for (const e of errs)
                console.log(`       ${e}`);
        } else {
            passed++;
            console.log(`ok   ${o.apiVersion} ${key} (${origin.get(o)})`);
        }
    }
    if (objs.length === 0) {
        console.log("FAIL no manifests found");
        failed++;
    }
    console.log(`k8s-validate: ${passed} passed, ${failed} failed`);
    process.exitCode = failed ? 1 : 0;
}

main().catch((e) => {
    console.log(`FAIL ${e.stack || e}`);
    console.log("k8s-validate: 0 passed, 1 failed");
    process.exitCode = 1;
});
