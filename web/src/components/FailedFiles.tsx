import type { JobFile } from '../api/types';
import { outcomeWords } from '../format/status-words';

/** The files (or pages) of a finished job that failed, each with its reason in words. */
export function FailedFiles({ files, label }: { files: readonly JobFile[]; label: string }) {
  const failed = files.filter((file) => file.status === 'failed');
  if (failed.length === 0) return null;
  return (
    <ul className="sync-failures" aria-label={label}>
      {failed.map((file) => (
        <li key={file.id}>
          <span className="upload-name">{file.name}</span>:{' '}
          {outcomeWords(file.status, file.reason, file.message)}
        </li>
      ))}
    </ul>
  );
}
