#include "visualizer/model/stepper.h"
