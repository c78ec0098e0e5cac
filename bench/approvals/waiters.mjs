// Child of bench/approvals/run.mjs: holds one long poll per approval id open
// (GET /v1/approvals/{id}?waitSeconds=60), tells the parent when every request is sent, and
// reports the time each answer arrives. Run in its own process so the parent's RSS is the server's.
/* global process, performance */
import { Agent, request } from 'undici';

const [origin, key, idsJson] = process.argv.slice(2);
const ids = JSON.parse(idsJson);
const agent = new Agent({
  connections: ids.length + 8,
  pipelining: 1,
  headersTimeout: 120_000,
  bodyTimeout: 120_000,
});
let exiting = false;
const now = () => performance.timeOrigin + performance.now();

for (const id of ids) {
  request(`${origin}/v1/approvals/${id}?waitSeconds=60`, {
    dispatcher: agent,
    headers: { authorization: `Bearer ${key}` },
  })
    .then(async (res) => {
      const at = now();
      const body = await res.body.json();
      process.send({ answered: id, at, status: res.statusCode, approvalStatus: body.status });
    })
    .catch((error) => exiting || process.send({ failed: id, error: String(error) }));
}
process.send({ sent: ids.length });
process.on('message', (m) => {
  exiting = true;
  if (m === 'exit') void agent.destroy().then(() => process.exit(0));
});
