// The InstallationSource interface: every installation of the App, as GitHub knows them (the store may forget).

export interface InstallationSource {
  /** Ids of every installation of the App, ascending, all pages read. */
  listInstallations(): Promise<number[]>;
}
