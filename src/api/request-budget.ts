/**
 * A bound on the requests one piece of work may send (the evidence a plan reads: 500 by default), and on its time
 * (`deadline`: a signal that aborts when the time is spent, with a BudgetSpentError; a request waiting for its slot
 * then gives it up, and none is sent after). Each request sent through a budget's view of the transport spends one
 * before it is sent (a retry of it by the transport spends nothing more); once none is left the request is not sent
 * and `BudgetSpentError` is thrown, which the reader turns into a partial answer. Work in parallel first sets aside
 * what it expects to need (`reserve`), so that several do not each spend half of what is left and none finish. A
 * budget also counts the bytes of the answers read through it: once they reach its byte limit (DEFAULT_BUDGET_BYTES,
 * 48 MiB: less than one list's own MAX_LIST_BYTES, so that fat answers, runs with 38 kB messages, end the read as
 * partial rather than as an error) no further request is sent, whatever requests are left.
 */
import type { ListTransport } from './paginate.js';

/** The bytes of answers a budget reads at most, by default. */
export const DEFAULT_BUDGET_BYTES = 48 * 1024 * 1024;

export class BudgetSpentError extends Error {
  override name = 'BudgetSpentError';
  /** `limit`: requests; `bytes`: the byte limit that was reached; `of: 'time'`: `limit` is the time budget in ms. */
  constructor(readonly limit: number, readonly bytes: number | null = null, readonly of: 'requests' | 'bytes' | 'time' = bytes === null ? 'requests' : 'bytes') {
    super(of === 'time' ? `the time budget of ${Math.round(limit / 1000)} s is spent`
      : bytes === null ? `the request budget of ${limit} is spent` : `the budget of ${Math.round(bytes / (1024 * 1024))} MiB of answers is spent`);
  }
}

/** What spends requests: a budget, or a reservation of one. */
export interface RequestSpender {
  /** The transport, each of whose requests first spends one (or throws BudgetSpentError, sending nothing). */
  view(transport: ListTransport): ListTransport;
}

/**
 * `refund`: gives back what `take` spent, for a request the deadline called off (it was waiting for its slot, or its
 * answer was dropped): what the budget counts is what was read.
 */
function spending(transport: ListTransport, take: () => void, read: (bytes: number) => void, deadline: AbortSignal | undefined, refund: () => void): ListTransport {
  return {
    url: (path) => transport.url(path),
    logger: transport.logger,
    send: async (request, signal) => {
      take();
      let response;
      try {
        response = await transport.send(request, deadline === undefined || signal === undefined ? (deadline ?? signal) : AbortSignal.any([signal, deadline]));
      } catch (error) {
        if (deadline?.aborted === true && error === deadline.reason) refund();
        throw error;
      }
      read(Buffer.byteLength(response.text));
      return response;
    },
  };
}

export class RequestBudget implements RequestSpender {
  private used = 0;
  /** Set aside by reservations and not spent yet: no one else may spend it. */
  private held = 0;
  private bytesRead = 0;
  /** `deadline`: aborts (with a BudgetSpentError) once the work's time is spent. */
  constructor(readonly limit: number, readonly maxBytes: number = DEFAULT_BUDGET_BYTES, readonly deadline?: AbortSignal) {}

  /** Bytes of the answers read through it. */
  get bytes(): number {
    return this.bytesRead;
  }

  /** Counts the bytes of an answer read. */
  read(bytes: number): void {
    this.bytesRead += bytes;
  }

  get spent(): number {
    return this.used;
  }

  /** Neither spent nor set aside. */
  get left(): number {
    return this.limit - this.used - this.held;
  }

  take(): void {
    if (this.deadline?.aborted === true) throw this.deadline.reason as Error;
    if (this.bytesRead >= this.maxBytes) throw new BudgetSpentError(this.limit, this.maxBytes);
    if (this.left <= 0) throw new BudgetSpentError(this.limit);
    this.used += 1;
  }

  /** Gives back one request spent that the deadline called off. */
  refund(): void {
    this.used = Math.max(0, this.used - 1);
  }

  /** Sets `count` aside, or null (nothing set aside) when fewer are left. */
  reserve(count: number): Reservation | null {
    if (count > this.left) return null;
    this.held += count;
    return new Reservation(this, count, () => {
      this.held -= 1;
      this.used += 1;
    }, (unused) => (this.held -= unused));
  }

  view(transport: ListTransport): ListTransport {
    return spending(transport, () => this.take(), (bytes) => this.read(bytes), this.deadline, () => this.refund());
  }
}

/** Requests set aside for one piece of work; past them it spends from the budget like anyone else. */
export class Reservation implements RequestSpender {
  constructor(
    private readonly budget: RequestBudget,
    private remaining: number,
    private readonly spendHeld: () => void,
    private readonly giveBack: (unused: number) => void,
  ) {}

  take(): void {
    if (this.remaining <= 0) return this.budget.take();
    if (this.budget.deadline?.aborted === true) throw this.budget.deadline.reason as Error;
    if (this.budget.bytes >= this.budget.maxBytes) throw new BudgetSpentError(this.budget.limit, this.budget.maxBytes);
    this.remaining -= 1;
    this.spendHeld();
  }

  /** Gives back what was set aside and not spent; call it once the work is done. */
  release(): void {
    this.giveBack(this.remaining);
    this.remaining = 0;
  }

  view(transport: ListTransport): ListTransport {
    return spending(transport, () => this.take(), (bytes) => this.budget.read(bytes), this.budget.deadline, () => this.budget.refund());
  }
}
