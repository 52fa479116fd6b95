/** One secret as its source lists it: names and keys, never a value (DESIGN §10). */
export interface SecretEntry {
  name: string;
  /** Bindable keys, sorted; reserved `_…` names are never keys. */
  keys: string[];
  description?: string;
  /** Origins (`https://host[:port]`) the secret may be typed on, when `restricted`. */
  allowedOrigins: string[];
  /** Declared where it may be used; a declaration that parses to nothing allows nothing. */
  restricted: boolean;
  /** Declaration lines refused, rebuilt from scheme, host and port; never the line as written. */
  rejected: string[];
  /** Kubernetes `swiftbrowse.io/session` label: listed to that session only. */
  session?: string;
}

export interface SourceListing {
  entries: SecretEntry[];
  /** What could not be read, for the operator; never fatal. */
  problems: string[];
}

/** Where secrets come from: a filesystem directory or the Kubernetes API (STYLE: seams). */
export interface SecretSource {
  /** Shown in the catalogue as the entry's source: `filesystem:/run/secrets`, `kubernetes:ns`. */
  readonly label: string;
  list(): Promise<SourceListing>;
  /** Reads one value now; the caller checked the key is listed. Never cached. */
  read(entry: SecretEntry, key: string): Promise<string>;
}
