// The admin API's JSON as the console reads it. Shapes the server declares are imported from src/
// (type-only: nothing of the server is bundled); the rest are the ADMIN-API.md contract of issue #20,
// added by the `api` and `settings` branches, and move to imports once those land.
import type { CapabilitiesReport, RunningBrowser } from '../../src/drivers/driver.js';
import type { ErrorInfo } from '../../src/core/errors.js';
import type { FileEntry } from '../../src/files/file-store.js';
import type { SavedFlow } from '../../src/flows/edit.js';
import type { FlowSummary } from '../../src/flows/library.js';

export type { ErrorInfo, FileEntry, FlowSummary, SavedFlow };

export type SessionState = 'open' | 'busy' | 'closed' | 'ended';
export type EndedBy = 'caller' | 'operator' | 'idle' | 'grid' | 'crashed' | 'stuck';

/** One row of GET /admin/sessions; fields after `ops` come with the `api` branch. */
export interface SessionSummary {
  name: string;
  browser?: string;
  busy?: boolean;
  backend?: string;
  last_url?: string;
  idle_ms?: number;
  ops?: number;
  state?: SessionState;
  ended_by?: EndedBy;
  flows?: number;
  files?: number;
  kept_bytes?: number;
  orphan?: boolean;
}

export interface SessionList {
  store: string;
  live_browsers: number;
  max_sessions: number;
  sessions: SessionSummary[];
}

export interface CapabilityEntry {
  key: string;
  value: unknown;
  sources: readonly string[];
}

export interface BrowserRecord {
  asked?: {
    browser: string;
    version?: string;
    window?: unknown;
    record?: unknown;
    headless?: boolean;
    timeouts?: Record<string, unknown>;
  };
  sent?: { capabilities: CapabilityEntry[] };
  ran?: {
    backend: string;
    browser: string;
    version: string;
    grid_session_id?: string;
    node?: string;
    started_at: string;
    idle_timeout_ms: number;
    live_view: boolean;
  };
  ended?: { at: string; by: EndedBy };
}

/** GET /admin/sessions/:name: the summary plus what src/surfaces/http/admin.ts adds. */
export interface SessionDetail extends SessionSummary {
  settings: Record<string, unknown>;
  running?: RunningBrowser;
  capabilities?: CapabilitiesReport;
  tabs?: { id: string; url: string }[];
  actions?: number;
  created_at: string;
  last_active_at: string;
  log: string;
  browser_record?: BrowserRecord;
}

export interface FileList {
  files: FileEntry[];
  total_bytes: number;
}

export interface FlowLibraries {
  libraries: { library: string; flows: FlowSummary[] }[];
}

/** GET /admin/flows/:library/:name (src/flows/edit.ts describeFlow). */
export interface FlowDocument {
  name: string;
  library: string;
  revision: string;
  flow?: unknown;
  warnings?: string[];
  problems?: unknown[];
  yaml: string;
}

export interface FlowOutline {
  name: string;
  library: string;
  revision: string;
  params: {
    name: string;
    type: unknown;
    description?: string;
    default?: unknown;
    read_by: string[];
    unread: boolean;
  }[];
  steps: {
    id: string;
    op: string;
    args: unknown;
    on_error?: unknown;
    note?: string;
    binds_secret: boolean;
    reads: string[];
  }[];
}

export interface Setting {
  name: string;
  env: string;
  value: unknown;
  source: 'default' | 'env' | 'flag';
  secret: boolean;
  doc: string;
}

export interface AuditEntry {
  at: string;
  session: string;
  op: string;
  flow?: string;
  step?: string;
  secret: string;
  key: string;
  url?: string;
  allowed: boolean;
  reason?: string;
}

export interface AuditLog {
  capacity: number;
  entries: AuditEntry[];
}
