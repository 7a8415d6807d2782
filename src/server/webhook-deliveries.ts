import { createHash } from 'node:crypto';

export interface DeliveryLimits {
  /** How long a delivery is remembered. */
  windowMs: number;
  /** Deliveries remembered at most; past it, the oldest is forgotten (memory stays bounded). */
  max: number;
}

/** A day, and 5,000 deliveries (about 1 MB): far more pushes than a repository gets in a day. */
export const DELIVERY_LIMITS: DeliveryLimits = { windowMs: 24 * 60 * 60 * 1000, max: 5_000 };

/** The webhook deliveries seen lately, so that one sent again (a replay, or a sender's retry) triggers no second pass. */
export interface DeliveryLog {
  /**
   * Whether a verified delivery was seen within the window, by its id (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`)
   * or by its body; records it when not. The id is not covered by the signature, so a replay with a new id is still
   * caught by its body: two real pushes never have the same body (their `before` and `after` differ).
   */
  seen(id: string | undefined, rawBody: Buffer): boolean;
}

export function createDeliveryLog(limits: DeliveryLimits = DELIVERY_LIMITS, now: () => number = Date.now): DeliveryLog {
  /** Key → when it was seen, oldest first. */
  const seenAt = new Map<string, number>();
  const forgetOld = (at: number) => {
    for (const [key, when] of seenAt) {
      if (at - when < limits.windowMs && seenAt.size <= limits.max * 2) return;
      seenAt.delete(key);
    }
  };
  return {
    seen(id, rawBody) {
      const at = now();
      forgetOld(at);
      const keys = [`body:${createHash('sha256').update(rawBody).digest('hex')}`, ...(id === undefined || id === '' ? [] : [`id:${id}`])];
      if (keys.some((key) => seenAt.has(key))) return true;
      for (const key of keys) seenAt.set(key, at);
      return false;
    },
  };
}
