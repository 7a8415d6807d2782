import assert from 'node:assert/strict';
import { ApiError } from '../../src/errors.js';

/** Awaits a rejection with ApiError of `status` for the request `method path`, its message naming both. */
export async function rejectsWithStatus(promise: Promise<unknown>, status: number, method: string, path: string): Promise<ApiError> {
  const error = await promise.then(() => assert.fail(`expected ${status} from ${method} ${path}`), (e: unknown) => e);
  assert.ok(error instanceof ApiError, `ApiError, got ${String(error)}`);
  assert.equal(error.status, status);
  assert.deepEqual(error.request, { method, path });
  assert.ok(error.message.startsWith(`${method} ${path} failed: ${status}`), error.message);
  return error;
}
