import type { FixtureServer } from './fixture-server.js';

/** The body of the report the download page serves. */
export const REPORT_CSV = 'id,total\n1,42\n';

/** `/downloads.html`: one "Export" link that downloads `report.csv` (an attachment). */
export function serveReportDownload(server: FixtureServer): void {
  server.setRoute('/export/report.csv', (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/csv',
      'content-disposition': 'attachment; filename="report.csv"',
    });
    res.end(REPORT_CSV);
  });
  server.setContent('/downloads.html', '<a href="/export/report.csv">Export</a>');
}
