// Item 4: a saved flow of 12 steps flown in one call, against the same 12 steps as 12 calls.
import { SwiftBrowseAgent } from '../agents/swiftbrowse.js';
import { round, sum } from '../stats.js';

export interface FlowFigures {
  steps: number;
  separate: { wallMs: number; received: number; sent: number; calls: number };
  /** `saveChars`: what saving the flow once costs (the document sent and the answer). */
  flow: { wallMs: number; received: number; sent: number; saveChars: number; stepsRun: number };
  error?: string;
}

/** The checkout task without its reads: 12 op calls. */
function steps(base: string) {
  const t = (role: string, name: string) => ({ role, name });
  return [
    { op: 'goto', args: { url: `${base}/checkout.html` } },
    { op: 'click', args: { target: t('button', 'Checkout') }, approved: true },
    { op: 'fill', args: { target: t('textbox', 'Full name'), value: 'Ada Lovelace' } },
    { op: 'fill', args: { target: t('textbox', 'Street address'), value: '12 Rua Augusta' } },
    { op: 'fill', args: { target: t('textbox', 'City'), value: 'Lisbon' } },
    { op: 'fill', args: { target: t('textbox', 'ZIP code'), value: '1100-053' } },
    { op: 'fill', args: { target: t('combobox', 'Country'), value: 'Portugal' } },
    { op: 'click', args: { target: t('button', 'Continue') } },
    { op: 'fill', args: { target: t('textbox', 'Card number'), value: '4242424242424242' } },
    { op: 'fill', args: { target: t('textbox', 'Expiry date'), value: '12/29' } },
    { op: 'fill', args: { target: t('checkbox', 'I accept the terms of sale'), value: true } },
    {
      op: 'click',
      args: {
        target: t('button', 'Place order'),
        expect: { text_visible: 'Order #A-1042 will ship to Lisbon' },
      },
      approved: true,
    },
  ];
}

/** The flow document (DESIGN §8) as YAML; JSON is valid YAML, so no YAML library is needed. */
function flowYaml(base: string): string {
  const body = {
    name: 'bench-checkout',
    description: 'Checkout on the bench store',
    urls: [`${base}/*`],
    steps: steps(base).map((s) => ({
      op: s.op,
      args: s.op === 'click' && s.approved ? { ...s.args, approved: true } : s.args,
    })),
  };
  return JSON.stringify(body, null, 2);
}

export async function measureFlow(base: string, dataDir: string): Promise<FlowFigures> {
  const agent = new SwiftBrowseAgent({
    tools: 'full',
    env: { DATA_DIR: dataDir },
    session: 'flow',
  });
  await agent.start(`${base}/blank.html`);
  try {
    const list = steps(base);
    const first = agent.calls.length;
    const t0 = performance.now();
    for (const s of list)
      await agent.run(s.op, { ...s.args, ...(s.approved ? { approved: true } : {}) });
    const separateMs = performance.now() - t0;
    const separate = agent.calls.slice(first);

    const saveArgs = { flow: flowYaml(base) };
    const saved = await agent.run('flow_save', saveArgs);
    const t1 = performance.now();
    const ran = await agent.run('flow_run', { name: 'bench-checkout' });
    const flowMs = performance.now() - t1;
    const failed = agent.calls.slice(first).find((c) => !c.ok);
    const error = saved.result.isError
      ? `flow_save refused the document: ${saved.text.slice(0, 400)}`
      : ran.result.isError
        ? ran.text.slice(0, 400)
        : failed
          ? `${failed.tool} failed`
          : undefined;
    const report = (JSON.parse(ran.text) as { data?: { steps_run?: number } }).data;
    return {
      steps: list.length,
      separate: {
        wallMs: round(separateMs),
        received: sum(separate.map((c) => c.received)),
        sent: sum(separate.map((c) => c.sent)),
        calls: separate.length,
      },
      flow: {
        wallMs: round(flowMs),
        received: ran.text.length,
        sent: JSON.stringify({ name: 'bench-checkout' }).length,
        saveChars: JSON.stringify(saveArgs).length + saved.text.length,
        stepsRun: report?.steps_run ?? 0,
      },
      error,
    };
  } finally {
    await agent.stop();
  }
}
