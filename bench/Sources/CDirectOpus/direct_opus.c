#include "CDirectOpus.h"
