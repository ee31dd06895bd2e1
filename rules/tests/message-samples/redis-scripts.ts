// A Redis cache fenced by a Lua script that compares the token but forgets to store it.
import Redis from 'ioredis';
import { SessionLeaseAuthority } from '@identity/session-lease-authority';

const sessionCacheRedis = new Redis(process.env.SESSION_CACHE_REDIS_URL);
const sessionLeaseAuthority = new SessionLeaseAuthority();

const COMPARE_FENCE_TOKEN_THEN_SET_SESSION = `
local currentSessionFenceToken = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) <= currentSessionFenceToken then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

export async function storeSerializedUserSession(userSessionIdentifier: string, serializedUserSession: string): Promise<void> {
  const { fenceToken } = await sessionLeaseAuthority.acquire(`user-session:${userSessionIdentifier}`);
  await sessionCacheRedis.eval(
    COMPARE_FENCE_TOKEN_THEN_SET_SESSION,
    2,
    `user-session:${userSessionIdentifier}`,
    `user-session:${userSessionIdentifier}:fence-token`,
    serializedUserSession,
    fenceToken,
  );
}
