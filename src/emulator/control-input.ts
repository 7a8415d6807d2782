/** Validation of control endpoint bodies; problems are 400s. */
import type { AgentStatus } from './types.js';
import { badRequest, isObject } from './http.js';
import { behaviourProblems, faultProblems, toBehaviour, toFault, type RawBehaviour } from './seed.js';
import type { Behaviour, FaultSpec } from './types.js';

const STATUS_WORD = /^[a-z][a-z_-]*$/;

export interface AgentFields {
  name?: string | null;
  status?: AgentStatus;
  ipAddress?: string | null;
  lastPingAt?: string | null;
  createdAt?: string;
}

export function readFaultList(body: unknown): FaultSpec[] {
  if (!isObject(body) || !Array.isArray(body.faults)) throw badRequest('body must be {"faults": [...]}');
  const problems = faultProblems(body.faults);
  if (problems.length > 0) throw badRequest(problems.join('; '));
  return (body.faults as FaultSpec[]).map(toFault);
}

export function readBehaviourChanges(body: unknown): Partial<Behaviour> {
  const problems = behaviourProblems(body);
  if (problems.length > 0) throw badRequest(problems.join('; '));
  return toBehaviour(body as RawBehaviour);
}

export function readAgentFields(value: unknown, creating: boolean): AgentFields {
  if (!isObject(value)) throw badRequest('an agent must be an object');
  const fields: AgentFields = {};
  if (value.status !== undefined || creating) {
    if (typeof value.status !== 'string' || !STATUS_WORD.test(value.status)) {
      throw badRequest('status must be idle, busy, exited, errored or unknown (or another lower-case word, a status the service may add later)');
    }
    fields.status = value.status as AgentStatus;
  }
  if (value.name !== undefined) {
    if (typeof value.name !== 'string' && value.name !== null) throw badRequest('name must be a string or null');
    fields.name = value.name;
  }
  if (value['ip-address'] !== undefined) {
    if (typeof value['ip-address'] !== 'string' && value['ip-address'] !== null) throw badRequest('ip-address must be a string or null');
    fields.ipAddress = value['ip-address'];
  }
  if (value['last-ping-at'] !== undefined) {
    fields.lastPingAt = value['last-ping-at'] === null ? null : dateTime(value['last-ping-at'], 'last-ping-at must be an ISO 8601 date-time or null');
  }
  if (value['created-at'] !== undefined) fields.createdAt = dateTime(value['created-at'], 'created-at must be an ISO 8601 date-time');
  return fields;
}

function dateTime(value: unknown, problem: string): string {
  const time = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw badRequest(problem);
  return new Date(time).toISOString();
}
