import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Invoice } from '@presence/contract';
import { shiftLeft } from '../domain/billing/decimal.js';
import { parsePlan } from '../domain/billing/check-plan.js';
import { closePeriod } from '../domain/billing/close-period-for-tenants.js';
import { listInvoices } from '../domain/billing/list-invoices.js';
import { getPlan, setPlan } from '../domain/billing/set-plan.js';
import { settleInvoice } from '../domain/billing/settle-invoice.js';
import type { Command } from './commands.js';
import { withCliDeps } from './with-cli-deps.js';

/** Operator billing commands: local administration through compose, like admin-commands.ts. */
const withDeps = withCliDeps;

function options(args: string[], names: string[]) {
  const spec = Object.fromEntries(names.map((n) => [n, { type: 'string' as const }]));
  return parseArgs({ args, options: { ...spec, json: { type: 'boolean' } } }).values as Record<
    string,
    string | undefined
  > & { json?: boolean };
}

function print(value: unknown, json: boolean | undefined, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : text);
}

const money = (minor: number, currency: string, exponent: number) =>
  `${currency} ${shiftLeft(String(minor), exponent)}`;
const invoiceLine = (i: Invoice) =>
  `${i.period}  ${(i.number ?? '(draft)').padEnd(10)}  ${i.status.padEnd(5)}  ${money(i.totalMinor, i.currency, i.currencyExponent).padStart(14)}  ${i.invoiceId}\n`;

export const billingCommands: Record<string, Command> = {
  'invoices close': {
    summary: '--period YYYY-MM [--tenant ID] [--json]: finalize a past period (all tenants by default)',
    run: async (args) => {
      const o = options(args, ['period', 'tenant']);
      if (!o.period) throw new Error('invoices close needs --period YYYY-MM');
      const result = await withDeps((deps) => closePeriod(deps, { period: o.period!, tenantId: o.tenant }));
      const lines = result.invoices.map(
        (i) =>
          `${i.created ? 'finalized' : 'already closed'}  ${i.number}  ${i.period}  ${i.tenantId}  ${money(i.totalMinor, i.currency, i.currencyExponent)}\n`,
      );
      const created = result.invoices.filter((i) => i.created).length;
      print(result, o.json, `${lines.join('')}${created} invoice(s) finalized for ${result.period}\n`);
      return 0;
    },
  },
  'invoices list': {
    summary: '--tenant ID [--json]: the live drafts and finalized invoices, newest first',
    run: async (args) => {
      const o = options(args, ['tenant']);
      if (!o.tenant) throw new Error('invoices list needs --tenant');
      const page = await withDeps((deps) => listInvoices(deps, o.tenant!, {}, { limit: 1000 }));
      print(page.items, o.json, page.items.map(invoiceLine).join(''));
      return 0;
    },
  },
  'invoices mark-paid': {
    summary: '--invoice INV_ID [--note TEXT] [--json]: record that an open invoice was paid',
    run: async (args) => settle(args, 'paid'),
  },
  'invoices void': {
    summary: '--invoice INV_ID [--note TEXT] [--json]: void an open invoice',
    run: async (args) => settle(args, 'void'),
  },
  'plans set': {
    summary: '--tenant ID --file plan.json [--from YYYY-MM] [--json]: assign a plan (see docs/billing.md)',
    run: async (args) => {
      const o = options(args, ['tenant', 'file', 'from']);
      if (!o.tenant || !o.file) throw new Error('plans set needs --tenant and --file');
      const plan = parsePlan(JSON.parse(readFileSync(o.file, 'utf8')), o.file);
      const assigned = await withDeps((deps) =>
        setPlan(deps, { tenantId: o.tenant!, plan, effectiveFrom: o.from }),
      );
      print(assigned, o.json, `plan "${plan.name}" applies to ${o.tenant} from ${assigned.effectiveFrom}\n`);
      return 0;
    },
  },
  'plans show': {
    summary: "--tenant ID: the plan in force for the tenant's current period",
    run: async (args) => {
      const o = options(args, ['tenant']);
      if (!o.tenant) throw new Error('plans show needs --tenant');
      const assignment = await withDeps((deps) => getPlan(deps, o.tenant!));
      process.stdout.write(`${JSON.stringify(assignment, null, 2)}\n`);
      return 0;
    },
  },
};

async function settle(args: string[], status: 'paid' | 'void'): Promise<number> {
  const o = options(args, ['invoice', 'note']);
  if (!o.invoice) throw new Error(`invoices ${status === 'paid' ? 'mark-paid' : 'void'} needs --invoice`);
  const invoice = await withDeps((deps) => settleInvoice(deps, o.invoice!, status, o.note));
  print(invoice, o.json, invoiceLine(invoice));
  return 0;
}
