/** Public types of the emulator: the seed and fault specifications. */
import type { AgentStatus } from '../model.js';

export type { AgentStatus };

export type FaultKind = 'status' | 'latency' | 'drop' | 'lose-response';

/** One injected fault; JSON keys are kebab-case, as in the seed and the control endpoint. */
export interface FaultSpec {
  kind: FaultKind;
  /** HTTP method to match; any when absent. */
  method?: string;
  /** Regex tested against the path after /api/v2, without query; any when absent. */
  path?: string;
  /** Status answered by a `status` fault. @default 503 */
  status?: number;
  /** Delay of a `latency` fault. @default 1000 */
  'latency-ms'?: number;
  /** How many matching requests it applies to; 0 = unlimited. @default 1 */
  count?: number;
}

export interface SeedAgent {
  name?: string;
  status: AgentStatus;
  ipAddress?: string;
  lastPingAt?: string;
}

export interface SeedAgentPool {
  name: string;
  organizationScoped?: boolean;
  /** `ws-` ids of workspaces of the same organization. */
  allowedWorkspaces?: string[];
  agents?: SeedAgent[];
}

export interface SeedWorkspace {
  id: string;
  name: string;
}

export interface SeedOrganization {
  name: string;
  /** @default 1 */
  maxAgentPools?: number;
  workspaces?: SeedWorkspace[];
  /** `polset-` ids. */
  policySets?: string[];
  agentPools?: SeedAgentPool[];
}

export interface Seed {
  /** Default: env API_TOKEN, else a random token. */
  token?: string;
  /** Requests per second per token; 0 turns it off. @default 30 */
  rateLimit?: number;
  organizations: SeedOrganization[];
  faults?: FaultSpec[];
}
