/**
 * Markdown from the agent, rendered as React elements by react-markdown: never as HTML. Raw HTML
 * in the text shows as the text it is, links are checked (see markdown-policy.ts), images show
 * their alt text, and headings become bold paragraphs so the page's own headings keep their order.
 * Loaded on its own (React.lazy, see conversation.tsx): the parser is most of the job page's weight.
 */
import type { ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { markdownUrl } from './markdown-policy.ts';

const heading = ({ children }: { children?: ReactNode }) => (
  <p className="markdown__heading">
    <strong>{children}</strong>
  </p>
);

const COMPONENTS: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noreferrer">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ alt }) => (alt ? <span className="markdown__image">[image: {alt}]</span> : null),
  h1: heading,
  h2: heading,
  h3: heading,
  h4: heading,
  h5: heading,
  h6: heading,
};

export default function MarkdownText({ text }: { text: string }) {
  return (
    <div className="markdown">
      <Markdown urlTransform={markdownUrl} components={COMPONENTS}>
        {text}
      </Markdown>
    </div>
  );
}
