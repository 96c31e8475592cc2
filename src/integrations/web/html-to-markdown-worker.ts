// Worker-thread entry point for turning a page's HTML into Markdown: a page of megabytes takes
// seconds of CPU, which must not stall the process's event loop (the worker's leases, other
// jobs), and the reader terminates the thread when the read's time limit runs out.
import { parentPort, workerData } from 'node:worker_threads';
import { htmlToMarkdown } from './html-to-markdown.ts';

const { html, url } = workerData as { html: string; url: string };
try {
  parentPort?.postMessage({ ok: true, page: htmlToMarkdown(html, url) });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
