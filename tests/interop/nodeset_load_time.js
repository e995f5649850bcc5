// node-opcua's side of docs/performance.md's NodeSet figures: an OPCUAServer initialized with
// namespace 0 alone, then with namespace 0 and the companion files; the difference is the
// companions' load time and heap. Usage: node nodeset_load_time.js [RUNS]
"use strict";
const path = require("path");
const { OPCUAServer } = require("node-opcua");

const dir = path.join(__dirname, "node_modules/node-opcua-nodesets/nodesets");
const sets = {
  "ns0": [],
  "di+machinery": ["Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"],
  "di+machinery+machinetool": ["Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml",
    "opc.ua.isa95-jobcontrol.nodeset2.xml", "Opc.Ua.Machinery.Jobs.Nodeset2.xml", "Opc.Ua.MachineTool.NodeSet2.xml"],
};

async function once(files) {
  global.gc && global.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = process.hrtime.bigint();
  const server = new OPCUAServer({
    port: 0,
    nodeset_filename: [path.join(dir, "Opc.Ua.NodeSet2.xml"), ...files.map((f) => path.join(dir, f))],
  });
  await server.initialize();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  global.gc && global.gc();
  const heap = process.memoryUsage().heapUsed - heap0;
  await server.shutdown();
  return { ms, heap };
}

(async () => {
  const runs = Number(process.argv[2] || 3);
  const base = {};
  for (const [name, files] of Object.entries(sets)) {
    const ms = [];
    let heap = 0;
    for (let i = 0; i < runs; ++i) {
      const r = await once(files);
      ms.push(r.ms);
      heap = r.heap;
    }
    ms.sort((a, b) => a - b);
    const median = ms[Math.floor(ms.length / 2)];
    if (name === "ns0") Object.assign(base, { median, heap });
    console.log(`node-opcua ${name.padEnd(26)} initialize median ${median.toFixed(0)} ms [${ms[0].toFixed(0)} .. ${ms[ms.length - 1].toFixed(0)}]` +
      `  heap ${(heap / 1e6).toFixed(1)} MB` +
      (name === "ns0" ? "" : `  (companions: +${(median - base.median).toFixed(0)} ms, +${((heap - base.heap) / 1e6).toFixed(1)} MB)`));
  }
  process.exit(0);
})().catch((e) => { console.error(e); process.exit(1); });
