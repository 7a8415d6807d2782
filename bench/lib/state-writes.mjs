// Preloaded into a daemon by bench/fleet.ts (`node --import`): counts the state dir's file writes as the daemon makes
// them. Every state file is written to a temporary file beside it and renamed over it (state-dir.ts writeStateText),
// so a rename onto a file under PPS_BENCH_STATE_DIR is one write of it, and the temporary files open at once for one
// file are its writes under way. Every 200 ms, and at exit, writes to PPS_BENCH_WRITES_FILE
// `{ "writes": { folder: count }, "files": { folder: distinct files }, "mostAtOnce": n }`.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

const stateDir = process.env.PPS_BENCH_STATE_DIR;
const out = process.env.PPS_BENCH_WRITES_FILE;
if (stateDir && out) {
  const root = path.resolve(stateDir);
  const writes = {};
  const files = {};
  const underWay = new Map();
  let mostAtOnce = 0;
  const TEMPORARY = /\.\d+\.[0-9a-f]+\.tmp$/;
  const target = (file) => {
    const absolute = path.resolve(String(file));
    return absolute.startsWith(`${root}${path.sep}`) ? absolute : null;
  };
  const promises = fs.promises;
  const open = promises.open;
  const rename = promises.rename;
  const unlink = promises.unlink;
  const settle = (temporary) => {
    const file = temporary.replace(TEMPORARY, '');
    const left = (underWay.get(file) ?? 1) - 1;
    if (left <= 0) underWay.delete(file);
    else underWay.set(file, left);
  };
  promises.open = async function countedOpen(file, ...rest) {
    const handle = await open.call(this, file, ...rest);
    const absolute = target(file);
    if (absolute !== null && TEMPORARY.test(absolute)) {
      const dest = absolute.replace(TEMPORARY, '');
      const now = (underWay.get(dest) ?? 0) + 1;
      underWay.set(dest, now);
      mostAtOnce = Math.max(mostAtOnce, now);
    }
    return handle;
  };
  promises.rename = async function countedRename(from, to) {
    await rename.call(this, from, to);
    const absolute = target(to);
    if (absolute === null) return;
    if (TEMPORARY.test(String(from))) settle(path.resolve(String(from)));
    const folder = path.relative(root, path.dirname(absolute)) || '.';
    writes[folder] = (writes[folder] ?? 0) + 1;
    (files[folder] ??= new Set()).add(absolute);
  };
  promises.unlink = async function countedUnlink(file) {
    await unlink.call(this, file);
    const absolute = target(file);
    if (absolute !== null && TEMPORARY.test(absolute)) settle(absolute);
  };
  syncBuiltinESMExports();
  const report = () => {
    const distinct = Object.fromEntries(Object.entries(files).map(([k, v]) => [k, v.size]));
    // Whole or not at all: the benchmark reads the file while the daemon runs.
    fs.writeFileSync(`${out}.tmp`, JSON.stringify({ writes, files: distinct, mostAtOnce }));
    fs.renameSync(`${out}.tmp`, out);
  };
  setInterval(report, 200).unref();
  process.on('exit', report);
}
