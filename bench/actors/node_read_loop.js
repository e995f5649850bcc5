// A closed-loop Read of ns=1;s=the.answer with node-opcua: `node bench/actors/node_read_loop.js ENDPOINT COUNT [INFLIGHT]`.
// The load for counting the server's system calls per Read (docs/performance.md); node-opcua itself is the bottleneck.
const { OPCUAClient, AttributeIds } = require(require("path").join(__dirname, "../../tests/interop/node_modules/node-opcua"));
(async () => {
  const c = OPCUAClient.create({ endpointMustExist: false, connectionStrategy: { maxRetry: 0 } });
  await c.connect(process.argv[2]);
  const s = await c.createSession();
  const n = +process.argv[3], inflight = +(process.argv[4]||1);
  const t0 = Date.now();
  let done = 0;
  async function worker(k) { for (let i = 0; i < k; i++) await s.read({ nodeId: "ns=1;s=the.answer", attributeId: AttributeIds.Value }); }
  await Promise.all(Array.from({length: inflight}, () => worker(n / inflight)));
  console.log("reads", n, "ms", Date.now() - t0);
  await s.close(); await c.disconnect();
})().catch(e => { console.log("ERR", e.message); process.exit(1); });
