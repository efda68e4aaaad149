package realsets

import ()
