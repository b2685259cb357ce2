import { Component, type ReactNode } from "react";
import { ErrorView } from "./states.tsx";

/**
 * Catches an error thrown while a page renders and shows it with a retry, where React would
 * otherwise unmount the whole app and leave a blank screen.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    if (this.state.error)
      return (
        <ErrorView error={this.state.error} what="This page" onRetry={() => this.setState({ error: null })} />
      );
    return this.props.children;
  }
}
