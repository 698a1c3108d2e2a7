/* workflows.c: Argo Workflows in the controller (see workflows.h). */
#include "workflows.h"

#include "argo_discovery.h"
#include "log.h"

bool ctl_workflows_served(kube_client *c)
{
    bool served = false;
    ds_err err = {{0}};
    if (kube_argo_workflows_served_wait(c, 30.0, &served, &err) != 0) {
        KLOG_WARN("main",
                  "cannot tell whether Argo Workflows are installed (%s): not watching "
                  "Workflows",
                  err.msg);
        return false;
    }
    KLOG_INFO("main", "%s",
              served ? "Argo Workflows are installed: watching Workflows"
                     : "Argo Workflows are not installed: not watching Workflows");
    return served;
}

int ctl_list_append_informer(kube_obj_list *l, kube_informer *inf)
{
    kube_obj_list more = {0};
    if (kube_informer_list(inf, &more) != 0)
        return -1;
    if (kube_obj_list_append(l, &more) != 0) {
        kube_obj_list_free(&more);
        return -1;
    }
    return 0;
}
