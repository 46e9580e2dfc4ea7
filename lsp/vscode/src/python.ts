/**
 * The interpreter selected in the Python extension (ms-python.python), through its public API
 * (@vscode/python-extension). Asked only when the workspace has no venv with brain: activating
 * the Python extension can take seconds.
 */

import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import * as vscode from 'vscode';

export interface SelectedPython {
  path: string | undefined;
  /** Why there is none, for the report. */
  missing?: string;
}

export async function selectedPython(resource: vscode.Uri): Promise<SelectedPython> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) {
    return { path: undefined, missing: 'the Python extension is not installed' };
  }
  try {
    const api = await PythonExtension.api();
    const active = api.environments.getActiveEnvironmentPath(resource);
    const resolved = await api.environments.resolveEnvironment(active);
    const path = resolved?.executable.uri?.fsPath ?? active.path;
    return path ? { path } : { path: undefined, missing: 'no interpreter selected' };
  } catch (err) {
    return { path: undefined, missing: `the Python extension did not answer (${String(err)})` };
  }
}
