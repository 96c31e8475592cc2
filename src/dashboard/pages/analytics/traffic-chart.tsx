/**
 * Human and AI traffic over time, drawn by uPlot on a canvas. Loaded on its own (React.lazy),
 * so uPlot is fetched only when a chart is shown. The canvas is hidden from assistive
 * technology: the figure's caption, the legend and the table beside it say the same in text.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Measure, Series } from './analytics-api.ts';

export interface TrafficChartProps {
  series: Series;
  measure: Measure;
  /** Called once the chart is drawn (the page marks itself ready for the benchmark). */
  onDrawn?: () => void;
}

const HEIGHT = 260;
const numbers = new Intl.NumberFormat();
const utcDay = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const DAY = 86_400;
const DAY_STEPS = [DAY, 2 * DAY, 7 * DAY, 14 * DAY, 28 * DAY, 91 * DAY, 182 * DAY, 364 * DAY];

export default function TrafficChart({ series, measure, onDrawn }: TrafficChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const human = useRef<HTMLSpanElement>(null);
  const ai = useRef<HTMLSpanElement>(null);
  const drawn = useRef(onDrawn);
  drawn.current = onDrawn;

  useEffect(() => {
    const target = box.current;
    if (!target) return;
    let chart: uPlot | null = null;
    const draw = () => {
      chart?.destroy();
      chart = new uPlot(
        options(series, measure, target, human.current, ai.current),
        data(series, measure),
        target,
      );
      drawn.current?.();
    };
    draw();
    const resize = new ResizeObserver(() => chart?.setSize({ width: widthOf(target), height: HEIGHT }));
    resize.observe(target);
    // Colours follow the theme: redraw when it changes (the toggle, or the system's).
    const themes = new MutationObserver(draw);
    themes.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', draw);
    return () => {
      resize.disconnect();
      themes.disconnect();
      media.removeEventListener('change', draw);
      chart?.destroy();
    };
  }, [series, measure]);

  return (
    <>
      <ul className="chart-legend">
        <li>
          <span ref={human} className="chart-swatch chart-swatch--human" aria-hidden="true" />
          Human
        </li>
        <li>
          <span ref={ai} className="chart-swatch chart-swatch--ai" aria-hidden="true" />
          AI
        </li>
      </ul>
      <div ref={box} className="chart" aria-hidden="true" />
      <p className="visually-hidden">
        {measure === 'visitors' ? 'Unique visitors' : 'Views'}:{' '}
        {numbers.format(total(series, measure, 'human'))} human and{' '}
        {numbers.format(total(series, measure, 'ai'))} AI over {series.points.length} points; the table below
        lists each.
      </p>
    </>
  );
}

const total = (series: Series, measure: Measure, who: 'human' | 'ai') =>
  series.points.reduce((sum, point) => sum + point[measure][who], 0);

const widthOf = (element: HTMLElement) => Math.max(200, Math.floor(element.getBoundingClientRect().width));

function data(series: Series, measure: Measure): uPlot.AlignedData {
  return [
    series.points.map((p) => Date.parse(p.start) / 1000),
    series.points.map((p) => p[measure].human),
    series.points.map((p) => p[measure].ai),
  ];
}

/** A colour the style sheets resolved (light-dark() included), read off an element that uses it. */
const colourOf = (element: Element | null, fallback: string) =>
  element ? getComputedStyle(element).backgroundColor || fallback : fallback;

function options(
  series: Series,
  measure: Measure,
  target: HTMLElement,
  humanKey: Element | null,
  aiKey: Element | null,
): uPlot.Options {
  const style = getComputedStyle(target);
  const text = style.color;
  const grid = style.borderColor || text;
  const humanColour = colourOf(humanKey, '#2f4dc8');
  const aiColour = colourOf(aiKey, '#c2410c');
  const daily = series.interval === 'day';
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
  const line = (label: string, colour: string): uPlot.Series => ({
    label,
    stroke: colour,
    width: 2,
    points: { show: series.points.length <= 60, size: 5, fill: colour },
    value: (_u, value) => (value === null ? '–' : numbers.format(value)),
  });
  return {
    width: widthOf(target),
    height: HEIGHT,
    // Days are UTC days: label them as such. Hours are shown in the viewer's time zone.
    ...(daily ? { tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC') } : {}),
    legend: { show: false },
    cursor: { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
    axes: [
      daily
        ? {
            ...axis,
            // Ticks on whole UTC days only, labelled with the date alone.
            incrs: DAY_STEPS,
            values: (_u, ticks) => ticks.map((t) => utcDay.format(new Date(t * 1000))),
          }
        : axis,
      { ...axis, size: 56, values: (_u, ticks) => ticks.map((t) => numbers.format(t)) },
    ],
    series: [
      { label: daily ? 'Day (UTC)' : 'Hour' },
      line(measure === 'visitors' ? 'Human visitors' : 'Human views', humanColour),
      line(measure === 'visitors' ? 'AI visitors' : 'AI views', aiColour),
    ],
  };
}
