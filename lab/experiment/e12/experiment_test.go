package e12

import ()
