/** What the domain needs from storage for tenants (a member of StoreTx in ../ports.ts). */

export interface TenantRecord {
  id: string;
  name: string;
  createdAt: number;
}

export interface TenantRepo {
  insert(t: TenantRecord): Promise<void>;
  get(id: string): Promise<TenantRecord | undefined>;
  list(): Promise<TenantRecord[]>;
}
