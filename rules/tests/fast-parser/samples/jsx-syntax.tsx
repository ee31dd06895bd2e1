import React from 'react';

type Props = { label: string; items: string[] };

export function List<T,>({ label, items }: Props) {
  const inline = <span className="tag" data-id={`x${1}`} aria-label="quoted" {...{ hidden: false }}>text and more</span>;
  return (
    <>
      <h1 title="a > b">{label} - {items.length}</h1>
      <ul>
        {items.map((item) => <li key={item}>{item}</li>)}
      </ul>
      <React.Fragment>{inline}</React.Fragment>
      <svg:rect xlink:href="#a" />
      {/* a comment in JSX */}
    </>
  );
}
