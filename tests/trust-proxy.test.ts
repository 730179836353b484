/**
 * TRUST_PROXY decides which address the rate limit counts. Without a trusted proxy, X-Forwarded-For
 * is the client's own words and must not buy a fresh budget; behind one trusted proxy (TRUST_PROXY=1)
 * the address that proxy appended is the client's, and each client is counted on its own.
 */
import { useTestApp } from './helpers/test-app';
import { agent } from './helpers/agent';

const ctx = useTestApp();

const LIMIT = { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_MS: '60000' };

describe('TRUST_PROXY=false (the default, no proxy in front)', () => {
  it('ignores a forged X-Forwarded-For: a new address in the header gives no new budget', async () => {
    const { app } = ctx.buildApp({ ...LIMIT, TRUST_PROXY: 'false' });
    const statuses: number[] = [];
    for (const forged of ['203.0.113.1', '203.0.113.2', '203.0.113.3', '198.51.100.7, 203.0.113.4']) {
      statuses.push((await agent(app).get('/').set('X-Forwarded-For', forged)).status);
    }

    expect(statuses).toEqual([200, 200, 429, 429]);
  });
});

describe('TRUST_PROXY=1 (one reverse proxy in front)', () => {
  it('counts each client address from X-Forwarded-For separately', async () => {
    const { app } = ctx.buildApp({ ...LIMIT, TRUST_PROXY: '1' });
    const from = (ip: string) => agent(app).get('/').set('X-Forwarded-For', ip);

    const statusesOfOne = [
      (await from('203.0.113.10')).status,
      (await from('203.0.113.10')).status,
      (await from('203.0.113.10')).status,
    ];
    const other = await from('203.0.113.20');

    expect(statusesOfOne).toEqual([200, 200, 429]);
    expect(other.status).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('1');
  });

  it('counts the address the proxy appended, so a client cannot dodge the limit by prefixing its own entries', async () => {
    const { app } = ctx.buildApp({ ...LIMIT, TRUST_PROXY: '1' });
    // The proxy appends the address it saw (203.0.113.30); what the client wrote before it is not trusted.
    const statuses: number[] = [];
    for (const forged of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) {
      statuses.push((await agent(app).get('/').set('X-Forwarded-For', `${forged}, 203.0.113.30`)).status);
    }

    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('the key of a client address', () => {
  const statusesFrom = async (addresses: string[]) => {
    const { app } = ctx.buildApp({ ...LIMIT, TRUST_PROXY: '1' });
    const statuses: number[] = [];
    for (const address of addresses) statuses.push((await agent(app).get('/').set('X-Forwarded-For', address)).status);
    return statuses;
  };

  it('is the same for an IPv4 address and its IPv4-mapped IPv6 form', async () => {
    expect(await statusesFrom(['203.0.113.40', '::ffff:203.0.113.40', '203.0.113.40'])).toEqual([200, 200, 429]);
  });

  it("is an IPv6 address's /56: one network cannot take a fresh budget per address, the next network can", async () => {
    expect(await statusesFrom(['2001:db8:0:1::1', '2001:db8:0:2::9', '2001:db8:0:3::5'])).toEqual([200, 200, 429]);
    expect(await statusesFrom(['2001:db8:0:100::1', '2001:db8:0:200::1', '2001:db8:0:300::1'])).toEqual([
      200, 200, 200,
    ]);
  });
});
