// fetch_url's reading of HTML pages (npm run bench:web [-- --runs N]): a page of reference
// sections (headings, prose with links and code, a code block, a table, a list) at several sizes,
// served on loopback and read through the real reader, so the figure is what the tool waits for:
// download, the converter thread's start and the HTML-to-Markdown conversion. Also how often the
// main thread's event loop ran meanwhile (it must keep running: the conversion is in a worker).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { OutboundPolicy } from '../../src/domain/network/outbound-policy.ts';
import { HttpWebReader } from '../../src/integrations/web/http-web-reader.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);

function page(sections: number): string {
  const parts: string[] = [];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `<section><h2 id="s${i}">Option ${i}</h2><p>Set <a href="/options/${i}">option ${i}</a> with <code>opt${i}</code>; ` +
        `it is <strong>optional</strong> and applies to every request.</p>` +
        `<pre><code class="language-js">client.configure({ opt${i}: true });\n</code></pre>` +
        `<table><tr><th>Value</th><th>Default</th></tr><tr><td>true</td><td>${i % 2 === 0}</td></tr></table>` +
        `<ul><li>since 1.${i}</li><li>see <em>Options</em></li></ul></section>`,
    );
  }
  return `<!doctype html><html><head><title>Options</title></head><body><nav>${'<a href="/">Home</a>'.repeat(100)}</nav><main>${parts.join('\n')}</main></body></html>`;
}

const pages = new Map<string, string>();
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pages.get(req.url ?? '') ?? '');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const reader = new HttpWebReader({
  policy: OutboundPolicy.parse('127.0.0.1') as OutboundPolicy,
  timeoutMs: 120_000,
});

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
console.log('HTML size   Markdown   read (median ms)   longest event-loop gap (ms)');
for (const sections of [20, 200, 2_000, 6_000, 12_000]) {
  const path = `/page-${sections}`;
  pages.set(path, page(sections));
  const times: number[] = [];
  let gap = 0;
  let markdownChars = 0;
  for (let run = 0; run < runs; run++) {
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 10);
    const started = performance.now();
    const read = await reader.read(`${origin}${path}`);
    times.push(performance.now() - started);
    clearInterval(timer);
    markdownChars = read.text.length;
  }
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`.padEnd(11);
  console.log(
    `${kb(pages.get(path)?.length ?? 0)} ${kb(markdownChars)}${median(times).toFixed(0).padStart(16)}${gap.toFixed(0).padStart(30)}`,
  );
}
reader.close();
server.close();
