// The admin API's JSON as the console reads it. Shapes the server declares are imported from src/
// (type-only: nothing of the server is bundled); the rest are written here from ADMIN-API.md.
import type { ErrorInfo } from '../../src/core/errors.js';
import type { CapabilitiesReport, RunningBrowser } from '../../src/drivers/driver.js';
import type { SavedFlow } from '../../src/flows/edit.js';
import type { FileEntry } from '../../src/files/file-store.js';
import type { FlowSummary } from '../../src/flows/library.js';
import type { FlowOutline } from '../../src/flows/outline.js';
import type { AdminState } from '../../src/sessions/admin-state.js';
import type { BrowserRecord, EndedBy } from '../../src/sessions/browser-record.js';
import type { AuditEntry } from '../../src/surfaces/http/admin-audit.js';
import type { SettingView } from '../../src/surfaces/http/admin-settings.js';

export type {
  AuditEntry,
  BrowserRecord,
  EndedBy,
  ErrorInfo,
  FileEntry,
  FlowOutline,
  FlowSummary,
  SavedFlow,
};

export type SessionState = AdminState;
/** One row of GET /admin/settings. */
export type Setting = SettingView;
/** One entry of `browser_record.sent.capabilities` (and of the live `capabilities.sent`). */
export type CapabilityEntry = CapabilitiesReport['sent'][number];

/** One row of GET /admin/sessions; an orphan row carries only name, orphan, state and its counts. */
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

export interface AuditLog {
  capacity: number;
  entries: AuditEntry[];
}
