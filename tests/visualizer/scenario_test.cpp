// filled in by the visualizer work
