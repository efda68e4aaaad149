package e20

import ()
