import type { ComponentChildren } from "preact";

/** One column: its header and what each row shows in it. */
export interface Column<Row> {
  title: string;
  cell: (row: Row) => ComponentChildren;
  /** A class of the column's cells. */
  class?: string;
}

/** A plain table of rows, one column per `columns` entry: the pages' figures tables. */
export function Table<Row>(props: {
  class: string;
  caption?: string;
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  /** `data-…` attributes of a row's `<tr>`, to find it by. */
  rowData?: (row: Row) => Record<`data-${string}`, string>;
}) {
  return (
    <table class={props.class}>
      {props.caption && <caption>{props.caption}</caption>}
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th key={column.title} scope="col">
              {column.title}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row) => (
          <tr key={props.rowKey(row)} {...props.rowData?.(row)}>
            {props.columns.map((column) => (
              <td key={column.title} class={column.class}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
