import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OutboundPolicy } from '../../../src/domain/network/outbound-policy.ts';
import { htmlToMarkdown } from '../../../src/integrations/web/html-to-markdown.ts';
import { HttpWebReader } from '../../../src/integrations/web/http-web-reader.ts';

describe('a web page as Markdown', () => {
  it("keeps an article's own header but drops the site's header, footer and navigation", () => {
    const page = htmlToMarkdown(
      `<html><head><title>  Guide\n  </title></head><body>
        <header>Site name</header><nav>Menu</nav>
        <article><header><h1>Webhooks</h1></header><p>Deliveries are signed.</p><footer>Edited today</footer></article>
        <footer>Site footer</footer></body></html>`,
      'https://docs.example.com/webhooks',
    );
    expect(page).toEqual({
      title: 'Guide',
      markdown: '# Webhooks\n\nDeliveries are signed.\n\nEdited today',
    });
  });

  it('reads the whole body when nothing marks the main content, without its header and footer', () => {
    const page = htmlToMarkdown(
      '<body><header>Logo</header><h2>Install</h2><p>Run the installer.</p><footer>©</footer></body>',
      'https://example.com/',
    );
    expect(page).toEqual({ title: 'Install', markdown: '## Install\n\nRun the installer.' });
  });

  it('makes links absolute against <base> and drops what cannot be followed or is hidden', () => {
    const page = htmlToMarkdown(
      `<html><head><base href="/v2/"></head><body><main>
        <p><a href="limits">Limits</a>, <a href="https://other.example/x">other</a>,
        <a href="javascript:void(0)">menu</a>, <a href="http://[broken">broken</a>.</p>
        <p><img src="img/flow.png" alt="Flow"> <img src="data:image/png;base64,iVBORw0KGgo=" alt="Inline chart"></p>
        <p hidden>Hidden text</p><p aria-hidden="true">Decoration</p><p>Kept</p>
      </main></body></html>`,
      'https://docs.example.com/v1/page',
    );
    expect(page.markdown).toBe(
      [
        '[Limits](https://docs.example.com/v2/limits), [other](https://other.example/x), menu, broken.',
        '',
        '![Flow](https://docs.example.com/v2/img/flow.png) Inline chart',
        '',
        'Kept',
      ].join('\n'),
    );
  });
});

describe('the web reader', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  it("decodes a page in the charset its server names, and a page title comes from the page's heading when it has no <title>", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=ISO-8859-1' });
      res.end(Buffer.from('<main><h1>Caf\xe9 cr\xe8me</h1></main>', 'latin1'));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/menu`;
    const reader = new HttpWebReader({ policy: OutboundPolicy.parse('127.0.0.0/8') as OutboundPolicy });
    expect(await reader.read(url)).toEqual({
      url,
      title: 'Café crème',
      contentType: 'text/html',
      text: '# Café crème',
    });
  });
});
