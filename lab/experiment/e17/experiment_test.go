package e17

import ()
