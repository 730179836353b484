'use strict';
/**
 * A TCP proxy between the API and its database, to break the link on purpose (tools/faults, tests):
 *   pass       forward bytes both ways (the default)
 *   cut        reset every open connection and every new one (the database host is gone)
 *   blackhole  accept connections but let no byte through either way, and reset nothing
 *              (a silent partition: a dropped route, a dead NAT entry)
 *
 *   const proxy = await startTcpProxy({ targetHost: '127.0.0.1', targetPort: 27017 });
 *   proxy.port; proxy.setMode('cut'); proxy.setMode('pass'); await proxy.close();
 *   proxy.cutOn(['insert', 'likes'])   the first message to the database that contains all these texts
 *                  reaches it, its answer does not, and the link is cut: a write applied whose client
 *                  cannot know it, between two writes of one request (any setMode disarms it)
 *
 * Listens on 127.0.0.1 only.
 */
const net = require('node:net');

/** How long after the message that triggers cutOn the link is cut. */
const CUT_AFTER_MS = 200;

function startTcpProxy({ targetHost = '127.0.0.1', targetPort, listenPort = 0 }) {
  let mode = 'pass';
  let cutTrigger;
  const pairs = new Set();

  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, targetHost);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    // a connection that loses bytes in a blackhole is broken for good, as it would be on a real network
    const pair = { client, upstream, broken: mode === 'blackhole' };
    pairs.add(pair);
    const forget = () => pairs.delete(pair);
    client.on('close', () => {
      forget();
      upstream.destroy();
    });
    upstream.on('close', () => {
      forget();
      client.destroy();
    });
    // Bytes flow only while the mode is pass; in a blackhole they are swallowed, never delivered.
    client.on('data', (chunk) => {
      if (cutTrigger && cutTrigger.every((text) => chunk.includes(text))) {
        upstream.write(chunk);
        setMode('blackhole');
        // long enough for the database to apply it; its answer is swallowed meanwhile
        setTimeout(() => mode === 'blackhole' && setMode('cut'), CUT_AFTER_MS);
        return;
      }
      if (mode === 'pass') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'pass') client.write(chunk);
    });
  });

  function setMode(next) {
    if (!['pass', 'cut', 'blackhole'].includes(next)) throw new Error(`unknown proxy mode ${next}`);
    mode = next;
    cutTrigger = undefined;
    if (next === 'cut') {
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    }
    if (next === 'pass') {
      // connections opened during a blackhole lost bytes on the way: they are broken, not paused
      for (const pair of pairs) {
        if (pair.broken) {
          pair.client.resetAndDestroy();
          pair.upstream.destroy();
        }
      }
    }
    if (next === 'blackhole') for (const pair of pairs) pair.broken = true;
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () => {
      resolve({
        port: server.address().port,
        get mode() {
          return mode;
        },
        get connections() {
          return pairs.size;
        },
        setMode,
        cutOn(texts) {
          cutTrigger = texts.map((text) => Buffer.from(text));
        },
        close() {
          for (const { client, upstream } of pairs) {
            client.destroy();
            upstream.destroy();
          }
          pairs.clear();
          return new Promise((done) => server.close(() => done()));
        },
      });
    });
  });
}

module.exports = { startTcpProxy };
