import type { FaultSpec, LoggedRequest } from '../../src/emulator/index.js';

export type { LoggedRequest };

/** The emulator's control endpoints (outside /api/v2), and raw /api/v2 calls that bypass the client. */
export class EmulatorControl {
  constructor(private readonly origin: string, private readonly token: string) {}

  async addFaults(...faults: FaultSpec[]): Promise<void> {
    await this.call('POST', '/_emulator/faults', { faults });
  }

  async clearFaults(): Promise<void> {
    await this.call('DELETE', '/_emulator/faults');
  }

  async requests(): Promise<LoggedRequest[]> {
    const body = (await this.call('GET', '/_emulator/requests')) as { requests: LoggedRequest[] };
    return body.requests;
  }

  async clearRequests(): Promise<void> {
    await this.call('DELETE', '/_emulator/requests');
  }

  async setRateLimit(limit: number): Promise<void> {
    await this.call('PUT', '/_emulator/rate-limit', { limit });
  }

  async addAgents(pool: string, agents: Array<Record<string, string>>): Promise<string[]> {
    const body = (await this.call('POST', '/_emulator/agents', { pool, agents })) as { ids: string[] };
    return body.ids;
  }

  /** Switches of the emulator's pessimistic readings, kebab-case keys; answers all of them. */
  async setBehaviour(changes: Record<string, boolean>): Promise<Record<string, boolean>> {
    return (await this.call('PUT', '/_emulator/behaviour', changes)) as Record<string, boolean>;
  }

  async state(): Promise<unknown> {
    return this.call('GET', '/_emulator/state');
  }

  /** A raw /api/v2 request, to see documents exactly as the emulator sends them. */
  async raw(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; json: unknown }> {
    const response = await fetch(`${this.origin}/api/v2${path}`, {
      method,
      redirect: 'manual',
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined && method === 'GET' ? {} : { 'content-type': 'application/vnd.api+json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text === '' ? null : (JSON.parse(text) as unknown);
  }
}
